package controlplane

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartNamesMissingBinary(t *testing.T) {
	dir := t.TempDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(dir, bin), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Start(context.Background(), Options{BinDir: dir})
	if err == nil || !strings.Contains(err.Error(), "kube-controller-manager missing") {
		t.Fatalf("Start with no kube-controller-manager: %v", err)
	}
}
