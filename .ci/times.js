#!/usr/bin/env node
// The table .ci/run prints when it ends (green or not): each tier's wall time.
//   node .ci/times.js <rows file> <seconds the run took> <exit status>
// A row of the file: label, start and end (seconds into the run) and result, separated by tabs;
// .ci/run writes one per tier, its background jobs their own when they end.
'use strict';
const fs = require('node:fs');

const [file, total, status] = process.argv.slice(2);
const rows = fs
	.readFileSync(file, 'utf8')
	.split('\n')
	.filter(Boolean)
	.map((line) => {
		const [label, from, to, result] = line.split('\t');
		return { label, from: Number(from), to: Number(to), result };
	})
	.sort((a, b) => a.from - b.from || a.to - b.to);

const clock = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
const took = (s) => `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
const table = [['tier', 'from', 'to', 'took', 'result'], ...rows.map((r) => [r.label, clock(r.from), clock(r.to), took(r.to - r.from), r.result])];
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
const line = (row) => row.map((cell, c) => (c === 0 || c === 4 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   ').trimEnd();

console.log('== time per tier (wall clock; from and to in minutes:seconds into the run; rows that overlap ran side by side)');
for (const row of table) console.log(`  ${line(row)}`);
console.log(`  total ${took(Number(total))}: ${status === '0' ? 'all green' : `FAILED (exit ${status})`}`);
