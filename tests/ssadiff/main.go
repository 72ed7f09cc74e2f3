// Command ssadiff runs kube-apiserver's field manager (apimachinery v0.32.13
// managedfields.NewDefaultCRDFieldManager, the chain custom resources use) on JSON-lines
// cases read from stdin and writes one JSON line per case: the resulting object, or the
// metav1.Status of the error as kube-apiserver would send it.
//
// Types come from the same OpenAPI definitions fakeapi reads (kubernetes-validate's JSON
// Schema copy, given with -definitions), converted by managedfields.NewTypeConverter; a case
// may instead carry a CRD's openAPIV3Schema ("crdSchema") or ask for the deduced type
// converter ("deduced": true).
//
// Case fields: op ("apply" | "update"), apiVersion, kind, live (object or null: create),
// object (the applied configuration or the new object), manager, force, subresource, now.
// Timestamps the field manager stamps (time.Now) are replaced by the case's "now".
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

type testCase struct {
	Op          string                 `json:"op"`
	APIVersion  string                 `json:"apiVersion"`
	Kind        string                 `json:"kind"`
	Live        map[string]interface{} `json:"live"`
	Object      map[string]interface{} `json:"object"`
	Manager     string                 `json:"manager"`
	Force       bool                   `json:"force"`
	Subresource string                 `json:"subresource"`
	Now         string                 `json:"now"`
	Deduced     bool                   `json:"deduced"`
	CRDSchema   map[string]interface{} `json:"crdSchema"`
}

// keyDefaults are the +default markers kube's own OpenAPI carries for list-map keys and the
// JSON Schema copy lacks (fakeapi's machinery/schemaconv.py has the same table).
var keyDefaults = map[string]map[string]string{
	"io.k8s.api.core.v1.ContainerPort": {"protocol": "TCP"},
	"io.k8s.api.core.v1.ServicePort":   {"protocol": "TCP"},
}

// normalise turns the JSON Schema dialect into OpenAPI's: "$defs" references become
// "definitions" ones and nullable type lists their non-null type.
func normalise(node interface{}) interface{} {
	switch n := node.(type) {
	case map[string]interface{}:
		for k, v := range n {
			if k == "$ref" {
				if ref, ok := v.(string); ok {
					n[k] = strings.Replace(ref, "#/$defs/", "#/definitions/", 1)
					continue
				}
			}
			if k == "type" {
				if types, ok := v.([]interface{}); ok {
					for _, t := range types {
						if t != "null" {
							n[k] = t
							break
						}
					}
					continue
				}
			}
			n[k] = normalise(v)
		}
	case []interface{}:
		for i, v := range n {
			n[i] = normalise(v)
		}
	}
	return node
}

func toSpec(raw interface{}) (*spec.Schema, error) {
	b, err := json.Marshal(normalise(raw))
	if err != nil {
		return nil, err
	}
	s := &spec.Schema{}
	return s, json.Unmarshal(b, s)
}

func loadDefinitions(path string) (map[string]interface{}, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Defs map[string]interface{} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	for name, fields := range keyDefaults {
		props := doc.Defs[name].(map[string]interface{})["properties"].(map[string]interface{})
		for field, def := range fields {
			props[field].(map[string]interface{})["default"] = def
		}
	}
	return doc.Defs, nil
}

func buildModels(defs map[string]interface{}, c *testCase) (map[string]*spec.Schema, error) {
	models := map[string]*spec.Schema{}
	for name, raw := range defs {
		if c.CRDSchema != nil && name != "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" && !strings.HasPrefix(name, "io.k8s.apimachinery.pkg.apis.meta.v1.") {
			continue
		}
		s, err := toSpec(deepCopy(raw))
		if err != nil {
			return nil, fmt.Errorf("definition %s: %v", name, err)
		}
		models[name] = s
	}
	if c.CRDSchema != nil {
		// What apiextensions-apiserver's OpenAPI builder adds around a CRD's schema.
		root := deepCopy(c.CRDSchema).(map[string]interface{})
		props, _ := root["properties"].(map[string]interface{})
		if props == nil {
			props = map[string]interface{}{}
			root["properties"] = props
		}
		props["apiVersion"] = map[string]interface{}{"type": "string"}
		props["kind"] = map[string]interface{}{"type": "string"}
		props["metadata"] = map[string]interface{}{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
		gv, _ := schema.ParseGroupVersion(c.APIVersion)
		root["x-kubernetes-group-version-kind"] = []interface{}{map[string]interface{}{"group": gv.Group, "version": gv.Version, "kind": c.Kind}}
		s, err := toSpec(root)
		if err != nil {
			return nil, err
		}
		models["fakeapi.test.CustomResource"] = s
	}
	return models, nil
}

func deepCopy(v interface{}) interface{} {
	b, _ := json.Marshal(v)
	var out interface{}
	_ = json.Unmarshal(b, &out)
	return out
}

type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]interface{}{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// convertor is the identity: every case is at one apiVersion.
type convertor struct{ runtime.ObjectConvertor }

func (convertor) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

type defaulter struct{}

func (defaulter) Default(runtime.Object) {}

func statusOf(err error) map[string]interface{} {
	st := metav1.Status{Status: metav1.StatusFailure, Code: 500, Message: err.Error()}
	if apiStatus, ok := err.(apierrors.APIStatus); ok {
		st = apiStatus.Status()
	}
	st.Kind, st.APIVersion = "Status", "v1"
	return map[string]interface{}{"error": st}
}

// converters caches type converters by schema: converting every definition takes a while.
var converters = map[string]managedfields.TypeConverter{}

func typeConverter(defs map[string]interface{}, c *testCase) (managedfields.TypeConverter, error) {
	if c.Deduced {
		return managedfields.NewDeducedTypeConverter(), nil
	}
	key := "builtin"
	if c.CRDSchema != nil {
		raw, _ := json.Marshal([]interface{}{c.APIVersion, c.Kind, c.CRDSchema})
		key = string(raw)
	}
	if tc, ok := converters[key]; ok {
		return tc, nil
	}
	models, err := buildModels(defs, c)
	if err != nil {
		return nil, err
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return nil, err
	}
	converters[key] = tc
	return tc, nil
}

func run(defs map[string]interface{}, c *testCase, started time.Time) (map[string]interface{}, error) {
	gv, err := schema.ParseGroupVersion(c.APIVersion)
	if err != nil {
		return nil, err
	}
	gvk := gv.WithKind(c.Kind)
	tc, err := typeConverter(defs, c)
	if err != nil {
		return nil, err
	}
	fm, err := managedfields.NewDefaultCRDFieldManager(tc, convertor{}, defaulter{}, creater{}, gvk, gv, c.Subresource, nil)
	if err != nil {
		return nil, err
	}
	var live runtime.Object
	if c.Live == nil {
		live, _ = creater{}.New(gvk)
	} else {
		live = &unstructured.Unstructured{Object: c.Live}
	}
	obj := &unstructured.Unstructured{Object: c.Object}
	var out runtime.Object
	switch c.Op {
	case "apply":
		if out, err = fm.Apply(live, obj, c.Manager, c.Force); err != nil {
			return statusOf(err), nil
		}
	case "update":
		out = fm.UpdateNoErrors(live, obj, c.Manager)
	default:
		return nil, fmt.Errorf("unknown op %q", c.Op)
	}
	u := out.(*unstructured.Unstructured)
	entries := u.GetManagedFields()
	now, err := time.Parse(time.RFC3339, c.Now)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if entries[i].Time != nil && !entries[i].Time.Time.Before(started.Truncate(time.Second)) {
			entries[i].Time = &metav1.Time{Time: now}
		}
	}
	if entries != nil {
		u.SetManagedFields(entries)
	}
	return map[string]interface{}{"object": u.Object}, nil
}

func main() {
	definitions := flag.String("definitions", "", "kubernetes-validate's _definitions.json")
	flag.Parse()
	defs, err := loadDefinitions(*definitions)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	started := time.Now()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		c := &testCase{}
		if err := json.Unmarshal(in.Bytes(), c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		result, err := run(defs, c, started)
		if err != nil {
			result = map[string]interface{}{"harnessError": err.Error()}
		}
		if err := out.Encode(result); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
