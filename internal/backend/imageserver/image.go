package imageserver

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Media types of what the server serves.
const (
	ManifestType = "application/vnd.oci.image.manifest.v1+json"
	configType   = "application/vnd.oci.image.config.v1+json"
	layerType    = "application/vnd.oci.image.layer.v1.tar"
)

// Image is a single-platform image: its manifest and the blobs it names.
type Image struct {
	Manifest []byte
	Digest   string // of the manifest
	Blobs    map[string][]byte
}

type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int    `json:"size"`
}

type manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        descriptor   `json:"config"`
	Layers        []descriptor `json:"layers"`
}

// NewImage builds an image from its configuration (the JSON of an image
// config, whose rootfs.diff_ids must name the layers) and its uncompressed
// layer archives, in order.
func NewImage(config []byte, layers ...[]byte) (Image, error) {
	img := Image{Blobs: map[string][]byte{}}
	m := manifest{SchemaVersion: 2, MediaType: ManifestType, Config: img.add(configType, config)}
	for _, l := range layers {
		m.Layers = append(m.Layers, img.add(layerType, l))
	}
	var err error
	if img.Manifest, err = json.Marshal(m); err != nil {
		return Image{}, err
	}
	img.Digest = digest(img.Manifest)
	return img, nil
}

func (img *Image) add(mediaType string, blob []byte) descriptor {
	d := descriptor{MediaType: mediaType, Digest: digest(blob), Size: len(blob)}
	img.Blobs[d.Digest] = blob
	return d
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FromDockerArchive reads an image from the archive that `docker save`
// writes of one image (manifest.json naming the config and layer files),
// in the layout of Docker 20.10 (<id>/layer.tar) or of later versions (OCI
// blobs/sha256/...), which both name their files in manifest.json.
func FromDockerArchive(r io.Reader) (Image, error) {
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Image{}, fmt.Errorf("reading the image archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if files[h.Name], err = io.ReadAll(tr); err != nil {
			return Image{}, fmt.Errorf("reading %s of the image archive: %w", h.Name, err)
		}
	}
	var entries []struct {
		Config string
		Layers []string
	}
	raw, ok := files["manifest.json"]
	if !ok {
		return Image{}, errors.New("the image archive has no manifest.json: is it the output of docker save?")
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return Image{}, fmt.Errorf("manifest.json of the image archive: %w", err)
	}
	if len(entries) != 1 {
		return Image{}, fmt.Errorf("manifest.json of the image archive lists %d images, want 1", len(entries))
	}
	get := func(name string) ([]byte, error) {
		b, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("the image archive has no %s, which its manifest.json names", name)
		}
		return b, nil
	}
	config, err := get(entries[0].Config)
	if err != nil {
		return Image{}, err
	}
	var layers [][]byte
	for _, name := range entries[0].Layers {
		l, err := get(name)
		if err != nil {
			return Image{}, err
		}
		layers = append(layers, l)
	}
	return NewImage(config, layers...)
}
