package policyplugin

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"

	"presetsim.dev/presetsim/internal/defaults"
)

// objects are the admission object interfaces of a scheme whose kinds have
// no internal version: an admitted object is already the version a policy
// matches, so converting between two objects of one type is a copy (the
// scheme has no conversion registered for that).
type objects struct {
	admission.ObjectInterfaces
	convertor sameType
	defaulter defaulter
}

func newObjects(s *runtime.Scheme, def func(runtime.Object)) *objects {
	return &objects{
		ObjectInterfaces: admission.NewObjectInterfacesFromScheme(s),
		convertor:        sameType{ObjectConvertor: s},
		defaulter:        defaulter(def),
	}
}

func (o *objects) GetObjectConvertor() runtime.ObjectConvertor { return o.convertor }
func (o *objects) GetObjectDefaulter() runtime.ObjectDefaulter { return o.defaulter }

// sameType is a scheme's conversion, and a copy between objects of one
// type.
type sameType struct{ runtime.ObjectConvertor }

func (c sameType) Convert(in, out, context any) error {
	if in == nil || out == nil || reflect.TypeOf(in) != reflect.TypeOf(out) {
		return c.ObjectConvertor.Convert(in, out, context)
	}
	src, ok := in.(runtime.Object)
	if !ok {
		return c.ObjectConvertor.Convert(in, out, context)
	}
	dst := reflect.ValueOf(out)
	if dst.Kind() != reflect.Pointer || dst.IsNil() {
		return fmt.Errorf("converting %T: the destination is not a pointer", out)
	}
	dst.Elem().Set(reflect.ValueOf(src.DeepCopyObject()).Elem())
	return nil
}

// DefaultPod is a Deps.Default for pods: the API server's defaults of a
// pod's items (defaults.Pod), in place; other objects are left as they are.
func DefaultPod(obj runtime.Object) {
	if pod, ok := obj.(*corev1.Pod); ok {
		*pod = *defaults.Pod(pod)
	}
}

// defaulter defaults with the caller's function, or not at all.
type defaulter func(runtime.Object)

func (d defaulter) Default(obj runtime.Object) {
	if d != nil {
		d(obj)
	}
}
