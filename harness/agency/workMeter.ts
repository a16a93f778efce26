/**
 * The work of one task run alone in the process (nothing else runs meanwhile): CPU of the process and
 * of its main thread, and the bytes V8 allocated. CPU times vary from run to run with the machine's
 * load; the allocated bytes are the repeatable count (the same code on the same data allocates the
 * same, give or take the JIT's warm-up): heap used at the end, minus at the start, plus what every
 * garbage collection in between freed (v8.GCProfiler).
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';

export interface Work {
	/** process.cpuUsage(): user + system of every thread (ms). */
	cpuMs: number;
	/** The main thread alone (Linux /proc schedstat; NaN elsewhere), ms. */
	mainThreadMs: number;
	/** Bytes allocated on V8's heap. */
	allocatedBytes: number;
	/** Garbage collections during the task. */
	collections: number;
}

function mainThreadNs(): number {
	try {
		return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
	} catch {
		return NaN;
	}
}

const cpuMicros = () => {
	const usage = process.cpuUsage();
	return usage.user + usage.system;
};

export async function measureWork<T>(task: () => Promise<T>): Promise<{ value: T; work: Work }> {
	const profiler = new v8.GCProfiler();
	profiler.start();
	const heapBefore = v8.getHeapStatistics().used_heap_size;
	const threadBefore = mainThreadNs();
	const cpuBefore = cpuMicros();
	const value = await task();
	const cpuAfter = cpuMicros();
	const threadAfter = mainThreadNs();
	const heapAfter = v8.getHeapStatistics().used_heap_size;
	const { statistics } = profiler.stop();
	const freed = statistics.reduce((sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize, 0);
	return {
		value,
		work: {
			cpuMs: (cpuAfter - cpuBefore) / 1000,
			mainThreadMs: (threadAfter - threadBefore) / 1e6,
			allocatedBytes: heapAfter - heapBefore + freed,
			collections: statistics.length,
		},
	};
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The p-th percentile (0..100), nearest rank. */
export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
