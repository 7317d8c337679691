package imageserver

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func testArchive(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(content))
	}
	_ = tw.Close()
	return buf.Bytes()
}

func TestFromDockerArchive(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		wantErr string
	}{
		{"docker 20.10 layout", map[string]string{
			"manifest.json": `[{"Config":"abc.json","RepoTags":["x:v1"],"Layers":["l1/layer.tar"]}]`,
			"abc.json":      `{"architecture":"amd64"}`, "l1/layer.tar": "layer bytes"}, ""},
		{"OCI layout", map[string]string{
			"manifest.json":  `[{"Config":"blobs/sha256/c","Layers":["blobs/sha256/l"]}]`,
			"blobs/sha256/c": `{}`, "blobs/sha256/l": "layer", "index.json": "{}"}, ""},
		{"not docker save", map[string]string{"x": "y"}, "no manifest.json"},
		{"two images", map[string]string{"manifest.json": `[{},{}]`}, "lists 2 images"},
		{"missing layer", map[string]string{"manifest.json": `[{"Config":"c","Layers":["gone"]}]`, "c": "{}"}, "has no gone"},
		{"bad manifest", map[string]string{"manifest.json": `{`}, "manifest.json of the image archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := FromDockerArchive(bytes.NewReader(testArchive(t, tt.files)))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var m manifest
			if err := json.Unmarshal(img.Manifest, &m); err != nil {
				t.Fatal(err)
			}
			if len(m.Layers) != 1 || img.Blobs[m.Layers[0].Digest] == nil || img.Blobs[m.Config.Digest] == nil {
				t.Errorf("manifest %s does not name the blobs %v", img.Manifest, img.Blobs)
			}
		})
	}
}

func TestHandler(t *testing.T) {
	img, err := NewImage([]byte(`{"config":{}}`), []byte("layer"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(img))
	defer srv.Close()
	var m manifest
	_ = json.Unmarshal(img.Manifest, &m)
	tests := []struct {
		name, method, path string
		wantStatus         int
		wantBody           string
		wantDigest         string
	}{
		{"api version", "GET", "/v2/", 200, "{}", ""},
		{"any name, any tag", "GET", "/v2/ecorp/website/manifests/latest", 200, string(img.Manifest), img.Digest},
		{"nested name", "HEAD", "/v2/google_samples/gb-frontend/manifests/v3", 200, "", img.Digest},
		{"manifest by its digest", "GET", "/v2/x/manifests/" + img.Digest, 200, string(img.Manifest), img.Digest},
		{"manifest by another digest", "GET", "/v2/x/manifests/sha256:0000", 404, "", ""},
		{"layer", "GET", "/v2/x/blobs/" + m.Layers[0].Digest, 200, "layer", m.Layers[0].Digest},
		{"unknown blob", "GET", "/v2/x/blobs/sha256:0000", 404, "", ""},
		{"push", "POST", "/v2/x/blobs/uploads/", 405, "", ""},
		{"not the API", "GET", "/other", 404, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantBody != "" && string(body) != tt.wantBody {
				t.Errorf("body %q, want %q", body, tt.wantBody)
			}
			if got := resp.Header.Get("Docker-Content-Digest"); got != tt.wantDigest {
				t.Errorf("digest %q, want %q", got, tt.wantDigest)
			}
		})
	}
}
