"""Score-with-policy exports: RO-Crate 1.3, CodeMeta 3.0 and RDF (DQV/PROV), and
``verify``, which recomputes a score from an export alone (``docs/exports.md``).

* :mod:`exporters.assessment`: the plain records every format reads (one
  :class:`~exporters.assessment.Assessment` per score), built from a store handed in by
  the application through its export queries, or in memory;
* :mod:`exporters.rocrate_export`, :mod:`exporters.codemeta_export`,
  :mod:`exporters.rdf_export`: the three formats;
* :mod:`exporters.verify`: the round trip;
* :mod:`exporters.jsonld`: the bundled JSON-LD contexts (``exporters/contexts/``), so
  nothing is ever fetched; :mod:`exporters.validator`: roc-validator, offline.

This package never imports ``reproscore`` (the application) or ``harvester``; it uses
the scorer's public functions (``scoring.aggregate``) for every number it recomputes.
"""
