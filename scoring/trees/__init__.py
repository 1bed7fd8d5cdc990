"""Where a tree comes from and what it is: tree sources (a local directory, an archive read
in place, a content store), the safety rules every archive member passes, and the SWHID of
a tree. Pure and small on purpose: this is the one part of ``scoring`` the harvester
imports (``harvester`` fetches and extracts with these rules and identifies what it
fetched; it never imports the detectors)."""
