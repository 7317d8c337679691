package imageserver

import (
	"bytes"
	"net/http"
	"strings"
	"time"
)

// Handler serves img under every name and tag.
func Handler(img Image) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "this registry only serves pulls", http.StatusMethodNotAllowed)
			return
		}
		path := strings.TrimPrefix(r.URL.Path, "/v2/")
		if path == r.URL.Path {
			http.NotFound(w, r)
			return
		}
		if path == "" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("{}"))
			return
		}
		if i := strings.LastIndex(path, "/manifests/"); i > 0 {
			ref := path[i+len("/manifests/"):]
			if strings.HasPrefix(ref, "sha256:") && ref != img.Digest {
				http.NotFound(w, r)
				return
			}
			serve(w, r, ManifestType, img.Digest, img.Manifest)
			return
		}
		if i := strings.LastIndex(path, "/blobs/"); i > 0 {
			d := path[i+len("/blobs/"):]
			blob, ok := img.Blobs[d]
			if !ok {
				http.NotFound(w, r)
				return
			}
			serve(w, r, "application/octet-stream", d, blob)
			return
		}
		http.NotFound(w, r)
	})
}

func serve(w http.ResponseWriter, r *http.Request, contentType, digest string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Docker-Content-Digest", digest)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
