#!/usr/bin/env python3
"""Regenerate the Python stubs of etcd's v3 gRPC API in ``fakeapi/etcd/pb/``.

Source: etcd v3.6.6's own proto files, from the Go module ``go.etcd.io/etcd/api/v3@v3.6.6``
(``etcdserverpb/rpc.proto``, ``mvccpb/kv.proto``, ``authpb/auth.proto``), fetched with
``go mod download`` through the module proxy. The Python generator cannot use their gogoproto,
versionpb, google.api and openapiv2 annotations (code-generation hints for Go and the
grpc-gateway; none changes the wire format), so they are stripped, and the imports are
rewritten to ``fakeapi/etcd/pb/...`` so the generated modules import each other as
``fakeapi.etcd.pb``. They are built into a descriptor pool of their own
(``fakeapi.etcd.pb.POOL``), so another etcd client's stubs can live in the same process. The proto packages (``etcdserverpb``, ``mvccpb``, ``authpb``) are kept:
the gRPC method paths (``/etcdserverpb.KV/Range``) are etcd's.

The generated ``*_pb2.py`` / ``*_pb2_grpc.py`` files are committed, so an install needs no
codegen. Needs Go and ``pip install grpcio-tools``. Usage:
``.venv/bin/python scripts/gen-etcd-protos.py``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ETCD_API_MODULE = "go.etcd.io/etcd/api/v3@v3.6.6"
#: proto file in the module -> the name it gets under fakeapi/etcd/pb/
FILES = {
    "mvccpb/kv.proto": "kv.proto",
    "authpb/auth.proto": "auth.proto",
    "etcdserverpb/rpc.proto": "rpc.proto",
}
IMPORTS = {
    "etcd/api/mvccpb/kv.proto": "fakeapi/etcd/pb/kv.proto",
    "etcd/api/authpb/auth.proto": "fakeapi/etcd/pb/auth.proto",
}
DROPPED_IMPORTS = ("gogoproto/", "google/api/", "protoc-gen-openapiv2/", "etcd/api/versionpb/")
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fakeapi" / "etcd" / "pb"


def module_dir() -> Path:
    out = subprocess.run(
        ["go", "mod", "download", "-json", ETCD_API_MODULE],
        check=True, capture_output=True, text=True, cwd=ROOT / "kube",
    ).stdout
    return Path(json.loads(out)["Dir"])


def _strip_options(text: str) -> str:
    """Drop every ``option (ext) = ...;`` statement (with a ``{...}`` body or not) and every
    ``[(ext) = ...]`` field option: all of them are extensions the Python generator lacks."""
    text = re.sub(r"\s*\[\s*\((gogoproto|versionpb)[^\]]*\]", "", text)
    out = []
    i = 0
    pattern = re.compile(r"option\s*\(")
    while True:
        m = pattern.search(text, i)
        if m is None:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        j = m.end()
        depth = 0
        while True:  # to the ';' that ends the statement, outside any braces
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == ";" and depth == 0:
                break
            j += 1
        i = j + 1


def clean(text: str) -> str:
    lines = []
    for line in text.splitlines():
        m = re.match(r'\s*import\s+"([^"]+)";', line)
        if m:
            path = m.group(1)
            if path.startswith(DROPPED_IMPORTS):
                continue
            line = f'import "{IMPORTS[path]}";'
        lines.append(line)
    return _strip_options("\n".join(lines) + "\n")


def main() -> int:
    from grpc_tools import protoc  # grpcio-tools

    src = module_dir()
    with tempfile.TemporaryDirectory() as tmp:
        proto_dir = Path(tmp) / "fakeapi" / "etcd" / "pb"
        proto_dir.mkdir(parents=True)
        for source, name in FILES.items():
            (proto_dir / name).write_text(clean((src / source).read_text()))
        args = [
            "protoc", f"-I{tmp}", f"--python_out={ROOT}", f"--pyi_out={ROOT}",
            f"--grpc_python_out={ROOT}",
            *(f"fakeapi/etcd/pb/{name}" for name in FILES.values()),
        ]
        if protoc.main(args) != 0:
            return 1
    for generated in OUT.glob("*_pb2_grpc.py"):
        if generated.name != "rpc_pb2_grpc.py":
            generated.unlink()  # kv and auth define no service
    for generated in OUT.glob("*_pb2.py"):
        # Our own descriptor pool: another etcd client in the same process (aetcd, etcd3)
        # registers etcd's protos, same names, in the default pool.
        text = generated.read_text()
        assert "_descriptor_pool.Default()" in text
        text = text.replace("_descriptor_pool.Default()", "_etcd_pb.POOL").replace(
            "from google.protobuf import descriptor_pool as _descriptor_pool\n",
            "from fakeapi.etcd import pb as _etcd_pb\n",
        )
        generated.write_text(text)
    print(f"generated {sorted(p.name for p in OUT.glob('*_pb2*'))} from {ETCD_API_MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
