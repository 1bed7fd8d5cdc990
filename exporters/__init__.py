"""Score-with-policy exports (RO-Crate, CodeMeta, RDF) and the collection audit report.
Exporters read plain records, never the store or the scorer internals."""
