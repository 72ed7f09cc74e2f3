// Package e2e builds e2e.test, kubernetes v1.35.4's end-to-end suite cut down to the API groups
// fakeapi answers for: sig-api-machinery, sig-apps, sig-node (test/e2e/common/node),
// sig-scheduling and sig-auth. scripts/conformance.py runs it, on fakeapi and on the real
// kube-apiserver, as the judge of fakeapi (`make conformance`).
//
// It is kubernetes' test/e2e/e2e_test.go with fewer test sources: the same flags, the same
// embedded test files, and kubernetes' own RunE2ETests, whose package (test/e2e) also brings the
// suite's setup (wait for schedulable nodes and kube-system's pods, log the server's version).
// That package imports test/e2e/common, which registers common/network's and common/storage's
// specs too: they are sig-network's and sig-storage's, outside the runner's focus.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"k8s.io/component-base/version"
	conformancetestdata "k8s.io/kubernetes/test/conformance/testdata"
	kubee2e "k8s.io/kubernetes/test/e2e"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"
	e2etestingmanifests "k8s.io/kubernetes/test/e2e/testing-manifests"
	testfixtures "k8s.io/kubernetes/test/fixtures"

	// Defines and freezes the feature constants the specs' labels use.
	_ "k8s.io/kubernetes/test/e2e/feature"

	// The test sources: each package registers its specs with ginkgo when imported.
	_ "k8s.io/kubernetes/test/e2e/apimachinery"
	_ "k8s.io/kubernetes/test/e2e/apps"
	_ "k8s.io/kubernetes/test/e2e/auth"
	_ "k8s.io/kubernetes/test/e2e/common/node"
	_ "k8s.io/kubernetes/test/e2e/scheduling"

	// Reconfigure the framework as e2e.test does: what a failed spec dumps, the metrics
	// grabber, the node helpers, gomega's object formatting.
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/metrics/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/utils/format"
)

func TestMain(m *testing.M) {
	versionFlag := flag.CommandLine.Bool("version", false, "Displays version information.")
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()

	if *versionFlag {
		fmt.Printf("%s\n", version.Get())
		os.Exit(0)
	}
	if flag.CommandLine.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "unknown additional command line arguments: %s", flag.CommandLine.Args())
		os.Exit(1)
	}

	// The manifests, fixtures and conformance data the specs read, embedded in the binary.
	testfiles.AddFileSource(e2etestingmanifests.GetE2ETestingManifestsFS())
	testfiles.AddFileSource(testfixtures.GetTestFixturesFS())
	testfiles.AddFileSource(conformancetestdata.GetConformanceTestdataFS())

	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

func TestE2E(t *testing.T) {
	kubee2e.RunE2ETests(t)
}
