// Command protodiff encodes objects the way kube-apiserver's protobuf serializer does, for
// fakeapi's differential tests of its protobuf encoder (tests/protodiff).
//
// Stdin: one JSON request per line; stdout: one JSON answer per line.
//
//	{"op":"encode","object":OBJ}      OBJ (with apiVersion and kind) decoded from JSON into
//	                                  its Go type (k8s.io/api, apiextensions, apiregistration,
//	                                  meta.k8s.io, apidiscovery v2) without defaulting, then
//	                                  written by apimachinery's protobuf serializer
//	  -> {"protobuf":BASE64} or {"error":MESSAGE}
//	{"op":"quantity","text":T}        resource.ParseQuantity(T).String()
//	  -> {"quantity":S} or {"error":MESSAGE}
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

type request struct {
	Op     string          `json:"op"`
	Object json.RawMessage `json:"object"`
	Text   string          `json:"text"`
}

type answer struct {
	Protobuf []byte `json:"protobuf,omitempty"`
	Quantity string `json:"quantity,omitempty"`
	Error    string `json:"error,omitempty"`
}

func newScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	utilruntime.Must(apiregistrationv1.AddToScheme(scheme))
	utilruntime.Must(apidiscoveryv2.AddToScheme(scheme))
	meta := schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"}
	scheme.AddKnownTypes(meta, &metav1.PartialObjectMetadata{}, &metav1.PartialObjectMetadataList{})
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"}) // Status, WatchEvent, ...
	return scheme
}

func main() {
	scheme := newScheme()
	decoder := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	encoder := protobuf.NewSerializer(scheme, scheme)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		var ans answer
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			ans.Error = err.Error()
		} else {
			switch req.Op {
			case "encode":
				obj, _, err := decoder.Decode(req.Object, nil, nil)
				if err == nil {
					var buf bytes.Buffer
					err = encoder.Encode(obj, &buf)
					ans.Protobuf = buf.Bytes()
				}
				if err != nil {
					ans.Error = err.Error()
				}
			case "quantity":
				q, err := resource.ParseQuantity(req.Text)
				if err != nil {
					ans.Error = err.Error()
				} else {
					ans.Quantity = q.String()
				}
			default:
				ans.Error = fmt.Sprintf("unknown op %q", req.Op)
			}
		}
		if err := out.Encode(ans); err != nil {
			panic(err)
		}
	}
	if err := in.Err(); err != nil {
		panic(err)
	}
}
