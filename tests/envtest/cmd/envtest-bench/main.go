// Command envtest-bench times what every envtest-based suite pays around its specs: envtest's
// start of the control plane it finds (KUBEBUILDER_ASSETS), the installation of the CRDs of
// -crds (envtest waits until they are served), and the stop. It prints one JSON line per phase,
// {"timing": NAME, "seconds": S}; after the installation it prints {"step": "installed"} and
// waits for a line on stdin, so that the caller can measure the control plane's memory at rest.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

var out = json.NewEncoder(os.Stdout)

func emit(fields map[string]any) {
	if err := out.Encode(fields); err != nil {
		panic(err)
	}
}

func must(phase string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", phase, err)
		os.Exit(1)
	}
}

func main() {
	crds := flag.String("crds", "", "the directory of CRDs to install")
	flag.Parse()

	env := &envtest.Environment{}
	started := time.Now()
	cfg, err := env.Start()
	must("start", err)
	emit(map[string]any{"timing": "start", "seconds": time.Since(started).Seconds()})

	installing := time.Now()
	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{*crds}, ErrorIfPathMissing: true})
	must("crd-install", err)
	emit(map[string]any{"timing": "crd-install", "seconds": time.Since(installing).Seconds()})

	emit(map[string]any{"step": "installed"})
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		must("wait", err)
	}
	stopping := time.Now()
	must("stop", env.Stop())
	emit(map[string]any{"timing": "stop", "seconds": time.Since(stopping).Seconds()})
}
