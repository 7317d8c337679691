package policyplugin

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	admissionregistrationv1api "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	admissionregistrationv1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	"k8s.io/client-go/openapi"
	clienttesting "k8s.io/client-go/testing"
)

// Client is the plug-ins' view of the cluster: the admission
// registration API (policies and bindings) of its own store, everything
// else (namespaces) from the cluster's client, and a discovery whose
// OpenAPI v3 lists api/v1.
type Client struct {
	kubernetes.Interface
	policies *fake.Clientset
	openAPI  *openAPI
}

func newClient(cluster kubernetes.Interface) *Client {
	policies := fake.NewSimpleClientset()
	var rv atomic.Int64
	stamp := func(action clienttesting.Action) (bool, runtime.Object, error) {
		var obj runtime.Object
		switch a := action.(type) {
		case clienttesting.CreateAction:
			obj = a.GetObject().DeepCopyObject()
		case clienttesting.UpdateAction:
			obj = a.GetObject().DeepCopyObject()
		default:
			return false, nil, nil
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return true, nil, fmt.Errorf("policy store: %w", err)
		}
		m.SetResourceVersion(strconv.FormatInt(rv.Add(1), 10))
		defaultPolicy(obj)
		t := policies.Tracker()
		ns := action.GetNamespace()
		if action.GetVerb() == "create" {
			err = t.Create(action.GetResource(), obj, ns)
		} else {
			err = t.Update(action.GetResource(), obj, ns)
		}
		if err != nil {
			return true, nil, err
		}
		return true, obj.DeepCopyObject(), nil
	}
	// Every write gets the next resourceVersion and the API server's
	// defaults, as in an API server; the plug-ins compile a policy again
	// when its resourceVersion changes.
	policies.PrependReactor("create", "*", stamp)
	policies.PrependReactor("update", "*", stamp)
	// The fake records every action, with a copy of its object, for a
	// test to read; nothing reads them here, and a long run (presetsim
	// fuzz: a policy written per case) grew by 180 KB a case. Each action
	// clears them, once the fake lets go of its lock (it holds it while
	// its reactors run).
	policies.PrependReactor("*", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		go policies.ClearActions()
		return false, nil, nil
	})
	return &Client{Interface: cluster, policies: policies, openAPI: newOpenAPI()}
}

// store writes policies and bindings.
func (c *Client) store(ctx context.Context, objs []runtime.Object) error {
	api := c.AdmissionregistrationV1()
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *admissionregistrationv1api.MutatingAdmissionPolicy:
			_, err = api.MutatingAdmissionPolicies().Create(ctx, o, metav1.CreateOptions{})
		case *admissionregistrationv1api.MutatingAdmissionPolicyBinding:
			_, err = api.MutatingAdmissionPolicyBindings().Create(ctx, o, metav1.CreateOptions{})
		case *admissionregistrationv1api.ValidatingAdmissionPolicy:
			_, err = api.ValidatingAdmissionPolicies().Create(ctx, o, metav1.CreateOptions{})
		case *admissionregistrationv1api.ValidatingAdmissionPolicyBinding:
			_, err = api.ValidatingAdmissionPolicyBindings().Create(ctx, o, metav1.CreateOptions{})
		default:
			err = fmt.Errorf("%T is not an admission policy or binding", obj)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// AdmissionregistrationV1 is the policies' store.
func (c *Client) AdmissionregistrationV1() admissionregistrationv1.AdmissionregistrationV1Interface {
	return c.policies.AdmissionregistrationV1()
}

// Discovery is the cluster's, with an OpenAPI v3 that lists api/v1.
func (c *Client) Discovery() discovery.DiscoveryInterfaces {
	return &withOpenAPI{DiscoveryInterfaces: c.Interface.Discovery(), openAPI: c.openAPI}
}

type withOpenAPI struct {
	discovery.DiscoveryInterfaces
	openAPI *openAPI
}

func (d *withOpenAPI) OpenAPIV3() openapi.Client { return d.openAPI }

func (d *withOpenAPI) OpenAPIV3WithContext(context.Context) openapi.ClientWithContext {
	return openapi.ToClientWithContext(d.openAPI)
}

// openAPI lists api/v1 with a document that has no schemas: enough for the
// mutating dispatcher to build a type converter, which a JSON patch never
// uses (an apply-configuration patch would, and fails without schemas).
type openAPI struct {
	once sync.Once
	read chan struct{} // closed once Paths has been called
}

func newOpenAPI() *openAPI { return &openAPI{read: make(chan struct{})} }

func (o *openAPI) Paths() (map[string]openapi.GroupVersion, error) {
	defer o.once.Do(func() { close(o.read) })
	return map[string]openapi.GroupVersion{"api/v1": emptyDocument{}}, nil
}

type emptyDocument struct{}

func (emptyDocument) Schema(string) ([]byte, error) {
	return []byte(`{"openapi":"3.0.0","info":{"title":"presetsim offline","version":"v1"},"paths":{},"components":{"schemas":{}}}`), nil
}

func (emptyDocument) ServerRelativeURL() string { return "/openapi/v3/api/v1" }

// IsWatchListSemanticsUnSupported tells client-go's reflectors to list,
// then watch, when the cluster's client is a fake one (which cannot
// stream a list); a real client streams.
func (c *Client) IsWatchListSemanticsUnSupported() bool {
	u, ok := c.Interface.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && u.IsWatchListSemanticsUnSupported()
}
