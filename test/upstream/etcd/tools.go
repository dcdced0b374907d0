//go:build tools

// Package tools pins the etcd server command scripts/upstream.sh builds.
package tools

import _ "go.etcd.io/etcd/server/v3"
