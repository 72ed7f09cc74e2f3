// Command widget-webhooks serves an operator's admission webhooks with controller-runtime's
// webhook server (sigs.k8s.io/controller-runtime/pkg/webhook), as an operator built with
// kubebuilder serves them: a defaulter and a validator of the Widget custom resource
// (widgets.example.com), over HTTPS with the certificate in --cert-dir (tls.crt, tls.key).
//
//	POST /mutate-widget   sets spec.size to 1 when it is unset, labels the widget "defaulted-by"
//	POST /validate-widget refuses a spec.size over 10 (create and update), and a delete of a
//	                      widget labelled protected=true; warns on a size over 5
//
// --port must be given (the started check dials it). It prints "serving" once the server
// accepts connections and stops when stdin closes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

type widget struct {
	Metadata struct {
		Labels map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec map[string]any `json:"spec,omitempty"`
}

func decode(raw []byte) (map[string]any, widget, error) {
	var object map[string]any
	var typed widget
	if err := json.Unmarshal(raw, &object); err != nil {
		return nil, typed, err
	}
	err := json.Unmarshal(raw, &typed)
	return object, typed, err
}

func defaulter(_ context.Context, req admission.Request) admission.Response {
	object, _, err := decode(req.Object.Raw)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	spec, _ := object["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		object["spec"] = spec
	}
	if _, ok := spec["size"]; !ok {
		spec["size"] = 1
	}
	metadata, _ := object["metadata"].(map[string]any)
	labels, _ := metadata["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		metadata["labels"] = labels
	}
	labels["defaulted-by"] = "widget-webhooks"
	patched, err := json.Marshal(object)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, patched)
}

func validator(_ context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Delete {
		_, old, err := decode(req.OldObject.Raw)
		if err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if old.Metadata.Labels["protected"] == "true" {
			return admission.Denied("widget is protected")
		}
		return admission.Allowed("")
	}
	_, typed, err := decode(req.Object.Raw)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	size, _ := typed.Spec["size"].(float64)
	if size > 10 {
		return admission.Denied(fmt.Sprintf("spec.size must be at most 10, not %v", size))
	}
	response := admission.Allowed("")
	if size > 5 {
		response = response.WithWarnings(fmt.Sprintf("a size of %v is large", size))
	}
	return response
}

func main() {
	port := flag.Int("port", 0, "port on 127.0.0.1 (required)")
	certDir := flag.String("cert-dir", "", "directory of tls.crt and tls.key")
	flag.Parse()
	server := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: *port, CertDir: *certDir})
	server.Register("/mutate-widget", &webhook.Admission{Handler: admission.HandlerFunc(defaulter)})
	server.Register("/validate-widget", &webhook.Admission{Handler: admission.HandlerFunc(validator)})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	go func() {
		// StartedChecker dials the server (TLS), so "serving" means a webhook call can connect.
		for server.StartedChecker()(nil) != nil {
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Println("serving")
	}()
	if err := server.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
