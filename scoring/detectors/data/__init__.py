"""Category A, data accessibility (METRICS.md A1–A4).

Can the data the analysis needs be found, obtained and used? Four detectors:

* A1 ``data_description``: the data is described in prose (a DATA file or a README data
  section), counted in rendered words;
* A2 ``data_pointer``: the repository says where the data lives (archive DOIs and URLs,
  institutional archives and accession numbers, Kaggle, data files on code hosts, direct
  data-file URLs, local data files);
* A3 ``workflow_orchestration``: the analysis is run by a declared workflow (an engine,
  a Make-like file, a pipeline driver script);
* A4 ``data_acquisition_script``: code downloads the data (shell, notebooks, Python, R,
  Julia, Make-like recipes, workflow rules, DVC tracking files).

Everything is read through the tree index: prose through ``tree.document``, Python through
the cached code units, notebooks through ``tree.notebook``; other scripts are read only
when their name or extension selects them, so every file is read at most once.
"""

from scoring.detectors.data import (
    data_acquisition_script,
    data_description,
    data_pointer,
    workflow_orchestration,
)

__all__ = ["data_description", "data_pointer", "workflow_orchestration", "data_acquisition_script"]
