// Command crddiff runs apiextensions-apiserver's own CRD and custom resource code on JSON-lines
// cases, so fakeapi's Python port (fakeapi/apiextensions/crd_validation.py, structural.py) can be
// compared with it.
//
// Each stdin line is one case; each stdout line is its result, in order:
//
//	{"op":"resource","schema":<openAPIV3Schema>,"object":<custom resource>}
//	  -> {"object":<after pruning and defaulting>,"errors":[[field,type,body],...]}
//	     what the CR write path does (customresource_handler.go unstructuredSchemaCoercer.apply,
//	     unstructuredDefaulter, then customResourceStrategy.Validate without metadata and CEL).
//	{"op":"crd","crd":<apiextensions.k8s.io/v1 CRD>,"old":<CRD or null>}
//	  -> {"errors":[[field,type,body],...]}
//	     v1 defaulting, conversion to the internal type, then ValidateCustomResourceDefinition
//	     (or ...Update when old is given), as the CRD REST strategy does.
//
// A line that cannot be processed yields {"error":"..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type request struct {
	Op     string                                    `json:"op"`
	Schema *apiextensionsv1.JSONSchemaProps          `json:"schema"`
	Object json.RawMessage                           `json:"object"`
	CRD    *apiextensionsv1.CustomResourceDefinition `json:"crd"`
	Old    *apiextensionsv1.CustomResourceDefinition `json:"old"`
}

type response struct {
	Object map[string]interface{} `json:"object,omitempty"`
	Errors [][3]string            `json:"errors"`
	Error  string                 `json:"error,omitempty"`
}

func fieldErrors(errs field.ErrorList) [][3]string {
	out := [][3]string{}
	for _, e := range errs {
		out = append(out, [3]string{e.Field, string(e.Type), e.ErrorBody()})
	}
	return out
}

func internalSchema(in *apiextensionsv1.JSONSchemaProps) (*apiextensions.JSONSchemaProps, error) {
	out := &apiextensions.JSONSchemaProps{}
	err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(in, out, nil)
	return out, err
}

// resource mirrors the custom resource write path for one schema and object.
func resource(req request) response {
	schema, err := internalSchema(req.Schema)
	if err != nil {
		return response{Error: err.Error()}
	}
	structural, err := structuralschema.NewStructural(schema)
	if err != nil {
		return response{Error: err.Error()}
	}
	obj, err := decodeJSON(req.Object)
	if err != nil {
		return response{Error: err.Error()}
	}
	pruning.Prune(obj, structural, true)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, structural)
	if err := objectmeta.Coerce(nil, obj, structural, true, false); err != nil {
		return response{Error: err.Error()}
	}
	structuraldefaulting.Default(obj, structural)

	validator, _, err := apiservervalidation.NewSchemaValidator(schema)
	if err != nil {
		return response{Error: err.Error()}
	}
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, validator)...)
	errs = append(errs, objectmeta.Validate(nil, obj, structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, structural, obj)...)
	return response{Object: obj, Errors: fieldErrors(errs)}
}

// decodeJSON decodes as kube's unstructured decoding does: integers as int64, other numbers
// as float64 (apimachinery util/json).
func decodeJSON(data []byte) (map[string]interface{}, error) {
	var u map[string]interface{}
	err := utiljson.Unmarshal(data, &u)
	return u, err
}

func internalCRD(in *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(in)
	out := &apiextensions.CustomResourceDefinition{}
	err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(in, out, nil)
	return out, err
}

// crd mirrors the CRD REST strategy's Validate / ValidateUpdate.
func crd(req request) response {
	obj, err := internalCRD(req.CRD)
	if err != nil {
		return response{Error: err.Error()}
	}
	if req.Old == nil {
		return response{Errors: fieldErrors(crdvalidation.ValidateCustomResourceDefinition(context.Background(), obj))}
	}
	old, err := internalCRD(req.Old)
	if err != nil {
		return response{Error: err.Error()}
	}
	return response{Errors: fieldErrors(crdvalidation.ValidateCustomResourceDefinitionUpdate(context.Background(), obj, old))}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 16<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		var resp response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			resp = response{Error: err.Error()}
		} else {
			switch req.Op {
			case "resource":
				resp = resource(req)
			case "crd":
				resp = crd(req)
			default:
				resp = response{Error: fmt.Sprintf("unknown op %q", req.Op)}
			}
		}
		if err := out.Encode(resp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
