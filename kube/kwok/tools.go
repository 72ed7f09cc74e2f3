//go:build tools

// Package tools pins kwok v0.8.0, the fake nodes and pods of `fakeapi cluster`. It lives in a
// module of its own: kwok v0.8.0 needs k8s.io/* v0.36, while ../go.mod pins kubernetes v1.35.4's
// staging modules at v0.35.4. scripts/build-kube.sh builds it from this module.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
