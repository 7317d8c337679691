// The API of redhat-cop/podpreset-webhook as declared here, against the
// k8s.io/api its commit 4bf4993 built with, so that controller-gen makes
// the CRD that commit shipped (hack/generate.sh).
module presetsim.dev/hack/crds/redhatcop

go 1.26.0

require (
	k8s.io/api v0.19.2
	k8s.io/apimachinery v0.19.2
)

require (
	github.com/go-logr/logr v0.2.0 // indirect
	github.com/gogo/protobuf v1.3.1 // indirect
	github.com/google/gofuzz v1.1.0 // indirect
	github.com/json-iterator/go v1.1.10 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.1 // indirect
	golang.org/x/net v0.0.0-20200707034311-ab3426394381 // indirect
	golang.org/x/text v0.3.3 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	gopkg.in/yaml.v2 v2.2.8 // indirect
	k8s.io/klog/v2 v2.2.0 // indirect
	sigs.k8s.io/structured-merge-diff/v4 v4.0.1 // indirect
)
