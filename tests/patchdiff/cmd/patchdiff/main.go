// Command patchdiff applies PATCH bodies the way kube-apiserver v1.32's patch handler does
// (apiserver/pkg/endpoints/handlers/patch.go), for fakeapi's differential tests.
//
// Each stdin line is a JSON case:
//
//	{"type": "json"|"merge"|"strategic", "kind": "Pod"|"Deployment"|"Service"|"ConfigMap"|...,
//	 "original": {...}, "patch": "<patch body>"}
//
// and each stdout line its answer: {"result": <patched JSON>} or
// {"error": {"code": 422, "reason": "Invalid", "message": "...", "cause": "<library error>"}},
// or {"panic": "..."} where the library panics.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"
)

const (
	maxJSONPatchOperations = 10000
	// genericapiserver's default JSONPatchMaxCopyBytes, which it sets as this limit.
	jsonPatchMaxCopyBytes = 3 * 1024 * 1024
)

var kinds = map[string]func() interface{}{
	"Pod":                 func() interface{} { return &corev1.Pod{} },
	"Service":             func() interface{} { return &corev1.Service{} },
	"ConfigMap":           func() interface{} { return &corev1.ConfigMap{} },
	"Deployment":          func() interface{} { return &appsv1.Deployment{} },
	"PodDisruptionBudget": func() interface{} { return &policyv1.PodDisruptionBudget{} },
}

type patchCase struct {
	Type     string          `json:"type"`
	Kind     string          `json:"kind"`
	Original json.RawMessage `json:"original"`
	Patch    string          `json:"patch"`
}

type statusError struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Cause   string `json:"cause,omitempty"`
}

type answer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *statusError    `json:"error,omitempty"`
	Panic  string          `json:"panic,omitempty"`
}

func main() {
	jsonpatch.AccumulatedCopySizeLimit = jsonPatchMaxCopyBytes
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var c patchCase
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, "bad case:", err)
			os.Exit(2)
		}
		line, _ := json.Marshal(run(c))
		out.Write(line)
		out.WriteByte('\n')
		out.Flush()
	}
}

func run(c patchCase) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Panic: fmt.Sprint(r)}
		}
	}()
	result, cause, err := apply(c)
	if err != nil {
		status := apierrors.APIStatus(nil)
		if !errors.As(err, &status) {
			// ErrorToAPIStatus of a plain error: 500, no reason.
			return answer{Error: &statusError{Code: http.StatusInternalServerError, Message: err.Error(), Cause: err.Error()}}
		}
		s := status.Status()
		msg := ""
		if cause != nil {
			msg = cause.Error()
		}
		return answer{Error: &statusError{Code: s.Code, Reason: string(s.Reason), Message: s.Message, Cause: msg}}
	}
	return answer{Result: result}
}

// apply returns the patched JSON, or the error kube answers with and the library error behind it.
func apply(c patchCase) ([]byte, error, error) {
	patch := []byte(c.Patch)
	switch c.Type {
	case "json":
		// kube patches the object as its codec encodes it: encoding/json, keys sorted, HTML-safe.
		doc, err := canonical(c.Original)
		if err != nil {
			return nil, nil, err
		}
		ops, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, err, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		out, err := ops.Apply(doc)
		if err != nil {
			return nil, err, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		// kube decodes the result into the object, which is what is compared
		out, err = canonical(out)
		return out, err, err
	case "merge":
		doc, err := canonical(c.Original)
		if err != nil {
			return nil, nil, err
		}
		out, err := jsonpatch.MergePatch(doc, patch)
		if err == jsonpatch.ErrBadJSONPatch {
			return nil, err, apierrors.NewBadRequest(err.Error())
		}
		if err != nil {
			return nil, err, err
		}
		out, err = canonical(out)
		return out, err, err
	case "strategic":
		newObject, ok := kinds[c.Kind]
		if !ok {
			return nil, nil, fmt.Errorf("unknown kind %q", c.Kind)
		}
		original := map[string]interface{}{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(c.Original, &original); err != nil {
			return nil, nil, err
		}
		original = exactSlices(original).(map[string]interface{})
		patchMap := map[string]interface{}{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(patch, &patchMap); err != nil {
			return nil, err, apierrors.NewBadRequest(err.Error())
		}
		patched, err := strategicpatch.StrategicMergeMapPatch(original, patchMap, newObject())
		if err != nil {
			return nil, err, interpretStrategicMergePatchError(err)
		}
		out, err := json.Marshal(patched)
		return out, err, err
	}
	return nil, nil, fmt.Errorf("unknown patch type %q", c.Type)
}

func canonical(original []byte) ([]byte, error) {
	var v interface{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(original, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// interpretStrategicMergePatchError is patch.go's.
func interpretStrategicMergePatchError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return apierrors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	default:
		return err
	}
}

// exactSlices copies v with every slice's capacity equal to its length, as
// runtime.DefaultUnstructuredConverter.ToUnstructured makes the original kube patches: the
// strategic merge code appends to and shifts slices in place, so capacity shows in results.
func exactSlices(v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, item := range v {
			v[k] = exactSlices(item)
		}
		return v
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, item := range v {
			out[i] = exactSlices(item)
		}
		return out
	default:
		return v
	}
}
