package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"
)

// The JSON of a patch operation's value, two ways: as k8s.io/apiserver's
// JSON patcher writes it (patch/json_patch.go: the CEL value converted to
// a structpb.Value, then encoding/json, which calls protojson and compacts
// its output), and as docs/policy.md ("Upstream") proposes, from the CEL
// value's native Go form (an Object literal's ObjectVal converts to
// map[string]any itself) straight to encoding/json.

func viaStructpb(v ref.Val) ([]byte, error) {
	pb, err := v.ConvertToNative(reflect.TypeFor[*structpb.Value]())
	if err != nil {
		return nil, err
	}
	return json.Marshal(pb)
}

func viaNative(v ref.Val) ([]byte, error) {
	native, err := nativeOf(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(native)
}

// nativeOf is v as the values encoding/json writes: lists and maps walked,
// an Object literal by its own conversion, null as nil, scalars as they are.
func nativeOf(v ref.Val) (any, error) {
	switch x := v.(type) {
	case *dynamic.ObjectVal:
		return x.ConvertToNative(reflect.TypeFor[map[string]any]())
	case types.Null:
		return nil, nil
	case traits.Lister:
		var out []any
		for it := x.Iterator(); it.HasNext() == types.True; {
			e, err := nativeOf(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	case traits.Mapper:
		out := map[string]any{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			key, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %v is no string", k)
			}
			e, err := nativeOf(x.Get(k))
			if err != nil {
				return nil, err
			}
			out[key] = e
		}
		return out, nil
	}
	return v.Value(), nil
}

// patchValuesOf100 are the patch values of the policy of 100 presets, all
// matching, on the bench's pod: the series where the policy costs most.
func patchValuesOf100(tb testing.TB) []ref.Val {
	tb.Helper()
	values, err := compileCost(tb, 100, 100).patchValues(context.Background(), costPod())
	if err != nil {
		tb.Fatal(err)
	}
	if len(values) == 0 {
		tb.Fatal("the policy's patch has no values")
	}
	return values
}

// TestNativeJSONIsTheAPIServers: the proposed conversion writes the JSON
// the API server's does, value for value, for every value of the policy's
// patch (compared as JSON values: key order aside).
func TestNativeJSONIsTheAPIServers(t *testing.T) {
	for i, v := range patchValuesOf100(t) {
		a, err := viaStructpb(v)
		if err != nil {
			t.Fatalf("value %d via structpb: %v", i, err)
		}
		b, err := viaNative(v)
		if err != nil {
			t.Fatalf("value %d natively: %v", i, err)
		}
		var x, y any
		if err := json.Unmarshal(a, &x); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &y); err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(x, y) {
			t.Errorf("value %d: the API server writes %s, natively %s", i, a, b)
		}
	}
}

// BenchmarkPatchValuesToJSON: the JSON of every value of the policy's patch
// for one pod (100 presets, all matching), the API server's way and the
// proposed one. docs/policy.md ("Upstream") quotes it.
func BenchmarkPatchValuesToJSON(b *testing.B) {
	values := patchValuesOf100(b)
	for _, way := range []struct {
		name string
		json func(ref.Val) ([]byte, error)
	}{{"structpb-protojson", viaStructpb}, {"native", viaNative}} {
		b.Run(way.name, func(b *testing.B) {
			for b.Loop() {
				for _, v := range values {
					if _, err := way.json(v); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
