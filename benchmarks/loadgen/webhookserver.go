package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// serveWebhooks runs `loadgen webhook-server`: admission webhooks for the benchmark rows that
// measure a server calling them. HTTPS on 127.0.0.1 (HTTP/2 offered, as a controller-runtime
// webhook server does) with a certificate of a CA made at start; POST /mutate answers with a JSON
// patch adding the label webhook=mutated, POST /validate allows; GET /calls answers how many
// reviews came in. It prints {"port":N,"caBundle":"<base64 PEM>"} and serves until stdin closes.
func serveWebhooks() {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fail(err)
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "loadgen-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		fail(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fail(err)
	}
	leafTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, caTemplate, &key.PublicKey, caKey)
	if err != nil {
		fail(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	var calls atomic.Int64
	mux := http.NewServeMux()
	patch := base64.StdEncoding.EncodeToString([]byte(`[{"op":"add","path":"/metadata/labels/webhook","value":"mutated"}]`))
	review := func(mutate bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			var in admissionv1.AdmissionReview
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Request == nil {
				http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
				return
			}
			response := map[string]any{"uid": in.Request.UID, "allowed": true}
			if mutate {
				response["patchType"] = "JSONPatch"
				response["patch"] = patch
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})
		}
	}
	mux.HandleFunc("POST /mutate", review(true))
	mux.HandleFunc("POST /validate", review(false))
	mux.HandleFunc("GET /calls", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, calls.Load()) })
	server := &http.Server{Handler: mux, TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}},
		NextProtos:   []string{"h2", "http/1.1"},
	}}
	go func() {
		if err := server.ServeTLS(listener, "", ""); err != nil && err != http.ErrServerClosed {
			fail(err)
		}
	}()
	bundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"port": listener.Addr().(*net.TCPAddr).Port, "caBundle": base64.StdEncoding.EncodeToString(bundle)})
	io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	server.Close()
}
