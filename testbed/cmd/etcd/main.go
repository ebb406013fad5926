// Command etcd runs a single-member etcd for kubectl-arc's tests, embedded from
// go.etcd.io/etcd/server/v3/embed so that the test bed builds it from the Go module proxy.
// It listens on loopback only and stops on SIGINT or SIGTERM.
package main

import (
	"flag"
	"log"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	dataDir := flag.String("data-dir", "", "directory for etcd's data (required)")
	clientURL := flag.String("listen-client-url", "http://127.0.0.1:2379", "client URL (loopback)")
	peerURL := flag.String("listen-peer-url", "http://127.0.0.1:2380", "peer URL (loopback)")
	flag.Parse()
	if *dataDir == "" {
		log.Fatal("etcd: --data-dir is required")
	}
	cu, err := url.Parse(*clientURL)
	if err != nil {
		log.Fatalf("etcd: --listen-client-url: %v", err)
	}
	pu, err := url.Parse(*peerURL)
	if err != nil {
		log.Fatalf("etcd: --listen-peer-url: %v", err)
	}

	cfg := embed.NewConfig()
	cfg.Name = "kubectl-arc-test"
	cfg.Dir = *dataDir
	cfg.ListenClientUrls = []url.URL{*cu}
	cfg.AdvertiseClientUrls = []url.URL{*cu}
	cfg.ListenPeerUrls = []url.URL{*pu}
	cfg.AdvertisePeerUrls = []url.URL{*pu}
	cfg.InitialCluster = cfg.Name + "=" + pu.String()
	cfg.LogLevel = "warn"
	// Tests write little and throw the data away: keep the backend small and fast.
	cfg.QuotaBackendBytes = 2 << 30
	cfg.UnsafeNoFsync = true

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatalf("etcd: start: %v", err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
		log.Printf("etcd: ready on %s", cu)
	case err := <-e.Err():
		log.Fatalf("etcd: %v", err)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		log.Printf("etcd: %v, stopping", s)
	case err := <-e.Err():
		log.Fatalf("etcd: %v", err)
	}
}
