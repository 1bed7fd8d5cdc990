"""Where deposits come from: Zenodo (OAI-PMH, REST) and Software Heritage (Web API, vault).
Never imports the scorer."""
