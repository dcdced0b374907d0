// The oracle's -celruntime mode: DRA device selectors evaluated as the scheduler's allocator
// evaluates them (k8s.io/dynamic-resource-allocation/cel's cache: stored expressions, cost
// estimation off, the runtime cost limit resourceapi.CELSelectorExpressionMaxCost), on one device.
// Input: JSON lines {"expression": "...", "driver": "...", "device": <a resource.k8s.io/v1 Device>};
// output, one line each:
//
//	{"expression": "...", "matches": <bool, absent on an error>, "cost": "<actual cost, absent
//	 when cel-go gives none>", "error": "<the allocator's CEL runtime error text, after
//	 cel.EnhanceRuntimeError>", "compileError": "..."}
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apiserver/pkg/util/feature"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/kubernetes/pkg/features"
)

type celRuntimeInput struct {
	Expression string             `json:"expression"`
	Driver     string             `json:"driver"`
	Device     resourceapi.Device `json:"device"`
}

type celRuntimeOutput struct {
	Expression   string  `json:"expression"`
	Matches      *bool   `json:"matches,omitempty"`
	Cost         *uint64 `json:"cost,string,omitempty"`
	Error        string  `json:"error,omitempty"`
	CompileError string  `json:"compileError,omitempty"`
}

func runCelRuntime(reader io.Reader, enc *json.Encoder) error {
	scanner := bufio.NewScanner(reader)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	cache := dracel.NewCache(1000, dracel.Features{
		EnableConsumableCapacity: feature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		EnableListTypeAttributes: feature.DefaultFeatureGate.Enabled(features.DRAListTypeAttributes),
	})
	for scanner.Scan() {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		var in celRuntimeInput
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			return fmt.Errorf("celruntime input: %w", err)
		}
		out := celRuntimeOutput{Expression: in.Expression}
		expr := cache.GetOrCompile(in.Expression)
		if expr.Error != nil {
			out.CompileError = expr.Error.Error()
		} else {
			d := in.Device
			matches, details, err := expr.DeviceMatches(context.Background(), dracel.Device{
				Driver:                   in.Driver,
				AllowMultipleAllocations: d.AllowMultipleAllocations,
				Attributes:               d.Attributes,
				Capacity:                 d.Capacity,
			})
			if details != nil {
				out.Cost = details.ActualCost()
			}
			if err != nil {
				out.Error = dracel.EnhanceRuntimeError(err).Error()
			} else {
				out.Matches = &matches
			}
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return scanner.Err()
}

func celRuntimeMain(path string, enc *json.Encoder) {
	var reader io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		reader = f
	}
	if err := runCelRuntime(reader, enc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
