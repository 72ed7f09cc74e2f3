"""Where a Service's backends are, read from its EndpointSlices as kube-apiserver's resolvers read
them (``proxy.ResolveEndpoint``, the APIService availability controller): the ready endpoints of
the slices labelled with the Service's name that carry a port of the Service port's name."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]

#: The label naming the Service an EndpointSlice belongs to.
SERVICE_NAME_LABEL = "kubernetes.io/service-name"


def host_port(host: str, port: Any) -> str:
    """``net.JoinHostPort``: an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def ready_addresses(slices: list[Json], port_name: str) -> list[str]:
    """``host:port`` of each ready endpoint (readiness unknown counts as ready) of the slices that
    have a port named ``port_name`` (a stored port's name is defaulted to "")."""
    addresses = []
    for endpoint_slice in slices:
        port = next((p.get("port") for p in endpoint_slice.get("ports") or () if (p.get("name") or "") == port_name),
                    None)
        if port is None:
            continue
        for endpoint in endpoint_slice.get("endpoints") or ():
            if (endpoint.get("conditions") or {}).get("ready") is not False:
                addresses += [host_port(address, port) for address in endpoint.get("addresses") or ()]
    return addresses
