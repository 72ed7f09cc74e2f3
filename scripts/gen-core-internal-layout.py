#!/usr/bin/env python3
"""Regenerate ``fakeapi/apis/core/internal_layout.json.gz``: the Go layout of kube's *internal*
``core.PodSpec`` and ``core.PersistentVolumeSpec`` and every type under them, which
``fakeapi.apis.core.pod_spec_diff`` needs to print what kube-apiserver prints of internal values:
the diff in the message of a refused pod, claim or volume update (``diff.Diff`` of the internal
specs: ``json.MarshalIndent`` of structs without JSON tags, every field shown), and bad values
that are internal structs.

For each struct type (keyed ``package.Type``), its fields in declaration order as
``[output name, v1 JSON name or null, type, flags]``: the output name is the Go field name for
the internal types (no JSON tags) and the JSON name for apimachinery types (which have tags);
the v1 name is where the value sits in the v1 object (matched by Go field name on the v1 type
of the same name); the type is ``string``/``bool``/``int``/``float``/``quantity``/``intstr``/
``time``/``bytes``, ``{"ptr": t}``, ``{"slice": t}``, ``{"map": t}`` or a struct's key; flags are
``o`` (``omitempty``) and ``i`` (an embedded struct, inlined).

Built with reflection by a Go program run in the ``kube/`` module (which requires
k8s.io/kubernetes v1.35.4); needs Go and a warm module cache or the module proxy.
Usage: ``.venv/bin/python scripts/gen-core-internal-layout.py``.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fakeapi" / "apis" / "core" / "internal_layout.json.gz"
GO = shutil.which("go") or "/usr/local/go/bin/go"

PROGRAM = r'''
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/apis/core"
)

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	intstrType   = reflect.TypeOf(intstr.IntOrString{})
	timeType     = reflect.TypeOf(metav1.Time{})
	layouts      = map[string][][]any{}
	v1Types      = map[string]reflect.Type{}
)

func key(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	return parts[len(parts)-1] + "." + t.Name()
}

func describe(t reflect.Type) any {
	switch t {
	case quantityType:
		return "quantity"
	case intstrType:
		return "intstr"
	case timeType:
		return "time"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Ptr:
		return map[string]any{"ptr": describe(t.Elem())}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return map[string]any{"slice": describe(t.Elem())}
	case reflect.Map:
		return map[string]any{"map": describe(t.Elem())}
	case reflect.Struct:
		walk(t)
		return key(t)
	case reflect.Interface:
		return "any"
	}
	panic("unsupported kind " + t.String())
}

func walk(t reflect.Type) {
	k := key(t)
	if _, done := layouts[k]; done {
		return
	}
	layouts[k] = nil
	v1Type := v1Types[t.Name()]
	fields := [][]any{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, flags := f.Name, ""
		if tag == "-" {
			continue
		}
		if tag != "" {
			parts := strings.Split(tag, ",")
			if parts[0] != "" {
				name = parts[0]
			}
			for _, p := range parts[1:] {
				if p == "omitempty" {
					flags += "o"
				}
				if p == "inline" {
					flags += "i"
				}
			}
		}
		if f.Anonymous && tag == "" {
			flags += "i"
		}
		var v1Name any
		if tag != "" {
			v1Name = name
		} else if v1Type != nil {
			if vf, ok := v1Type.FieldByName(f.Name); ok {
				v1Name = strings.Split(vf.Tag.Get("json"), ",")[0]
				if vf.Anonymous && v1Name == "" {
					v1Name = ""
				}
			}
		}
		fields = append(fields, []any{name, v1Name, describe(f.Type), flags})
	}
	layouts[k] = fields
}

func main() {
	registerAll(reflect.TypeOf(v1.PodSpec{}))
	registerAll(reflect.TypeOf(v1.PersistentVolumeSpec{}))
	walk(reflect.TypeOf(core.PodSpec{}))
	walk(reflect.TypeOf(core.PersistentVolumeSpec{}))
	out, _ := json.Marshal(layouts)
	os.Stdout.Write(out)
}

var visited = map[reflect.Type]bool{}

// registerAll indexes every v1 struct reachable from t by name.
func registerAll(t reflect.Type) {
	for t.Kind() == reflect.Ptr || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || visited[t] {
		return
	}
	visited[t] = true
	if t.PkgPath() == reflect.TypeOf(v1.Pod{}).PkgPath() {
		v1Types[t.Name()] = t
	}
	for i := 0; i < t.NumField(); i++ {
		registerAll(t.Field(i).Type)
	}
}
'''


def main() -> None:
    with tempfile.TemporaryDirectory(dir=ROOT / "kube") as tmp:
        (Path(tmp) / "main.go").write_text(PROGRAM)
        env = {**os.environ, "PATH": f"{Path(GO).parent}:{os.environ.get('PATH', '')}"}
        result = subprocess.run([GO, "run", f"./{Path(tmp).name}"], cwd=ROOT / "kube", env=env, check=True,
                                capture_output=True)
    layouts = json.loads(result.stdout)
    OUT.write_bytes(gzip.compress(json.dumps(layouts, sort_keys=True, separators=(",", ":")).encode(), mtime=0))
    print(f"{OUT}: {len(layouts)} types")


if __name__ == "__main__":
    main()
