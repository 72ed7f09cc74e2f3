#!/usr/bin/env python3
"""Regenerate the Go type data of Kubernetes' API objects (``fakeapi/machinery/gotypes.py``).

Writes two files beside that module, both gzip'd and reproducible (no timestamps):

* ``k8s_protobuf.desc.gz``: a ``FileDescriptorSet`` of the ``generated.proto`` files of
  ``k8s.io/api``, ``k8s.io/apimachinery`` (meta/v1, runtime, schema, resource, intstr),
  ``k8s.io/apiextensions-apiserver`` and ``k8s.io/kube-aggregator``, GA versions only (what
  fakeapi serves), compiled with grpcio-tools' ``protoc``.
* ``k8s_gofields.json.gz``: what the proto files do not say and Go's JSON encoder needs, read
  from the Go structs the messages are generated from (``go/parser``, no build): for each
  message, its Go fields in declaration order as ``[proto name, json name, flags, Go name]``
  with flags ``p`` (a pointer), ``o`` (``omitempty``), ``z`` (``omitzero``), ``i``
  (``inline``), and the Go field's name (an embedded struct's is its type's: ``ObjectMeta``),
  which gogo's ``Unmarshal`` errors name; and ``"items"`` for a message standing for a Go slice
  type (``type ExtraValue []string``). A message whose Go type is another package's struct
  (core/v1 ``type List metav1.List``) gets its proto fields, each ``omitempty`` and named as
  gogo names a field without a Go struct (``CamelCase``), as the Go type has them.

Needs Go (``go mod download`` through the module proxy) and ``pip install grpcio-tools``; the
runtime needs neither. Usage: ``.venv/bin/python scripts/gen-protobuf-descriptors.py``.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The module versions of Kubernetes 1.35 (``fakeapi/machinery/release.py`` TARGET_RELEASE).
MODULE_VERSION = "v0.35.4"
MODULES = ("k8s.io/api", "k8s.io/apimachinery", "k8s.io/apiextensions-apiserver", "k8s.io/kube-aggregator")
#: The apimachinery packages the API types import; the rest of apimachinery is not API types.
APIMACHINERY_PACKAGES = ("pkg/apis/meta/v1", "pkg/runtime", "pkg/runtime/schema", "pkg/api/resource", "pkg/util/intstr")
_GA_VERSION = re.compile(r"/v[0-9]+$")
OUT_DIR = Path(__file__).resolve().parent.parent / "fakeapi" / "machinery"
GO = shutil.which("go") or "/usr/local/go/bin/go"

#: Prints the Go field facts of every struct (and slice type) in the package directories given
#: as ``dir=proto.package`` arguments, keyed by the proto message name.
GO_FIELDS_PROGRAM = r'''
package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
)

func protoName(tag reflect.StructTag) string {
	for _, part := range strings.Split(tag.Get("protobuf"), ",") {
		if strings.HasPrefix(part, "name=") {
			return strings.TrimPrefix(part, "name=")
		}
	}
	return ""
}

// goName is a field's Go name: an embedded struct's is its type's (metav1.ObjectMeta: ObjectMeta).
func goName(f *ast.Field) string {
	if len(f.Names) > 0 {
		return f.Names[0].Name
	}
	typ := f.Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch t := typ.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

func fields(st *ast.StructType) [][4]string {
	out := [][4]string{}
	for _, f := range st.Fields.List {
		if f.Tag == nil {
			continue
		}
		tag := reflect.StructTag(strings.Trim(f.Tag.Value, "`"))
		name := protoName(tag)
		if name == "" && len(f.Names) == 0 && tag.Get("protobuf") != "" {
			// An embedded struct whose tag names no field (core/v1 EphemeralContainerCommon):
			// go-to-protobuf names it after its type, first letter lowered.
			if ident, ok := f.Type.(*ast.Ident); ok {
				name = strings.ToLower(ident.Name[:1]) + ident.Name[1:]
			}
		}
		if name == "" {
			continue
		}
		jsonParts := strings.Split(tag.Get("json"), ",")
		flags := ""
		if _, ok := f.Type.(*ast.StarExpr); ok {
			flags += "p"
		}
		for _, opt := range jsonParts[1:] {
			switch opt {
			case "omitempty":
				flags += "o"
			case "omitzero":
				flags += "z"
			case "inline":
				flags += "i"
			}
		}
		out = append(out, [4]string{name, jsonParts[0], flags, goName(f)})
	}
	return out
}

func main() {
	result := map[string]interface{}{}
	for _, arg := range os.Args[1:] {
		dir, pkg, _ := strings.Cut(arg, "=")
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			panic(err)
		}
		for _, p := range pkgs {
			for _, file := range p.Files {
				ast.Inspect(file, func(n ast.Node) bool {
					spec, ok := n.(*ast.TypeSpec)
					if !ok {
						return true
					}
					switch t := spec.Type.(type) {
					case *ast.StructType:
						result[pkg+"."+spec.Name.Name] = fields(t)
					case *ast.ArrayType:
						result[pkg+"."+spec.Name.Name] = "items"
					}
					return false
				})
			}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		panic(err)
	}
}
'''


def module_dir(module: str) -> Path:
    out = subprocess.run([GO, "mod", "download", "-json", f"{module}@{MODULE_VERSION}"],
                         check=True, capture_output=True, text=True).stdout
    return Path(json.loads(out)["Dir"])


def proto_files(module: str, root: Path) -> list[Path]:
    """The module's ``generated.proto`` files fakeapi needs, relative to ``root``."""
    found = sorted(root.rglob("generated.proto"))
    if module == "k8s.io/apimachinery":
        return [root / pkg / "generated.proto" for pkg in APIMACHINERY_PACKAGES]
    return [path for path in found if _GA_VERSION.search(str(path.parent))]


def proto_package(path: Path) -> str:
    match = re.search(r"^package ([\w.]+);", path.read_text(), re.MULTILINE)
    assert match, path
    return match[1]


def camel_case(name: str) -> str:
    """gogo-protobuf's ``CamelCase`` of a proto field name without underscores: its Go name."""
    return name[:1].upper() + name[1:]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        include = Path(tmp)
        sources: list[str] = []  # import paths, e.g. k8s.io/api/core/v1/generated.proto
        packages: list[str] = []  # dir=proto.package for the Go fields program
        for module in MODULES:
            root = module_dir(module)
            link = include / module
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(root)
            for path in proto_files(module, root):
                sources.append(f"{module}/{path.relative_to(root)}")
                packages.append(f"{path.parent}={proto_package(path)}")
        descriptors = include / "k8s.desc"
        protoc = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{include}", "--include_imports",
                                 f"--descriptor_set_out={descriptors}", *sources], capture_output=True, text=True)
        if protoc.returncode:  # its warnings otherwise: the unused imports go-to-protobuf writes
            sys.exit(protoc.stderr)
        program = include / "gofields.go"
        program.write_text(GO_FIELDS_PROGRAM)
        env = {**os.environ, "GO111MODULE": "off"}  # a lone file of the standard library only
        facts = json.loads(subprocess.run([GO, "run", str(program), *packages], env=env, check=True,
                                          capture_output=True, text=True).stdout)
        descriptor_bytes = descriptors.read_bytes()
    from google.protobuf import descriptor_pb2

    messages = {f"{file.package}.{message.name}": message
                for file in descriptor_pb2.FileDescriptorSet.FromString(descriptor_bytes).file
                for message in file.message_type}
    facts = {name: facts.get(name) or [[f.name, f.name, "o", camel_case(f.name)] for f in messages[name].field]
             for name in sorted(messages)}
    (OUT_DIR / "k8s_protobuf.desc.gz").write_bytes(gzip.compress(descriptor_bytes, 9, mtime=0))
    (OUT_DIR / "k8s_gofields.json.gz").write_bytes(
        gzip.compress(json.dumps(facts, separators=(",", ":")).encode(), 9, mtime=0))
    print(f"{len(sources)} proto files, {len(messages)} messages, {len(descriptor_bytes)} descriptor bytes")


if __name__ == "__main__":
    main()
