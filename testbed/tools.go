//go:build tools

// Package tools records the kube-apiserver main package as a dependency so that `go mod tidy` keeps
// every module it needs in go.sum; scripts/testbed.sh builds it with
// `go build k8s.io/kubernetes/cmd/kube-apiserver`.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
