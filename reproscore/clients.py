"""The HTTP clients of a run, made from the configuration: one per source and rate limit.

Here rather than in the pipeline because the deposit tasks make their own in worker
processes (each with its share of the rate limits), and the pipeline composes the tasks.
"""

from __future__ import annotations

import os
from typing import Any

from harvester.http import HttpClient, user_agent
from harvester.zenodo import ZenodoHarvester

from .config import Config

__all__ = ["make_client", "make_harvesters", "make_swh_client"]


def make_client(config: Config, per_minute: float) -> HttpClient:
    """An HTTP client with the configured timeouts, retries and (unless pacing is off)
    the given client-side pace."""
    http = config.http
    return HttpClient(
        user_agent=user_agent(http.contact),
        timeout=(http.connect_timeout, http.read_timeout),
        max_attempts=http.max_attempts,
        backoff_base=http.backoff_base,
        backoff_max=http.backoff_max,
        per_minute=per_minute if http.pacing else None,
    )


def make_harvesters(config: Config) -> tuple[ZenodoHarvester, HttpClient]:
    """(harvester, download client). OAI and REST requests go through two clients, so
    each is paced by its own limit (30 and 60 per minute at Zenodo); downloads share the
    REST client's pace."""
    z = config.zenodo
    api_client = make_client(config, z.api_per_minute)
    harvester = ZenodoHarvester(
        make_client(config, z.oai_per_minute), rest_client=api_client,
        oai_url=z.oai_url, api_url=z.api_url, metadata_prefix=z.metadata_prefix,
        set_spec=z.set_spec,
        # Restarts are counted here (and recorded on the window), not inside.
        max_restarts=0,
    )
    return harvester, api_client


def make_swh_client(config: Config) -> tuple[Any, HttpClient]:
    """(Software Heritage client, its HTTP client): paced by ``swh.per_minute`` and the
    archive's rate-limit headers. The bearer token is read from the environment variable
    named by ``swh.token_env`` (never from a file), and only the client holds it."""
    from harvester.swh import SwhClient  # imported here: Zenodo-only runs do not need it

    http = make_client(config, config.swh.per_minute)
    token = os.environ.get(config.swh.token_env) or None
    return SwhClient(http, api_url=config.swh.api_url, token=token), http
