"""Which client costs the server what, and which known pathologies it shows: per-client
attribution of every resource request (``ClientReport``), the detectors (``detectors``), and
the report's JSON and terminal table (``GET /fakeapi/v1/report``, ``fakeapi report``)."""

from .detectors import DETECTORS, DetectorConfig
from .report import DEFAULT_MAX_CLIENTS, SORT_KEYS, ClientReport, ClientReportConfig

__all__ = ["DEFAULT_MAX_CLIENTS", "DETECTORS", "SORT_KEYS", "ClientReport", "ClientReportConfig", "DetectorConfig"]
