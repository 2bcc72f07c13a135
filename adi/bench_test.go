package adi

import "testing"

func BenchmarkFLTTextAlternating(b *testing.B) {
	tr, f := searchLoop(60000, 30000)
	v := tr.FLTView(f)
	b.ReportMetric(float64(len(f.Steps)), "steps")
	for b.Loop() {
		v.Text(TextOptions{})
	}
}

func BenchmarkFLTTextSum(b *testing.B) {
	tr, f := sumLoop(100000)
	v := tr.FLTView(f)
	for b.Loop() {
		v.Text(TextOptions{})
	}
}
