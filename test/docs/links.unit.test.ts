/**
 * Docs that cannot rot: every relative link and #anchor in the Markdown the project ships and keeps
 * (README.md, docs/**, CONTRIBUTING.md, CHANGELOG.md, RELEASING.md, bench/README.md) resolves to an
 * existing file or folder, and to a heading (GitHub's anchor rules) of the linked Markdown file. Links
 * with a scheme (https:, mailto:) are not followed: no network. Also: the README stays short.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { printFigures } from '../support/figures';

const ROOT = path.resolve(__dirname, '..', '..');
const README_MAX_LINES = 260;

function markdownUnder(dir: string): string[] {
	const found: string[] = [];
	for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
		const relative = path.join(dir, entry.name);
		if (entry.isDirectory()) found.push(...markdownUnder(relative));
		else if (entry.name.endsWith('.md')) found.push(relative);
	}
	return found;
}

const FILES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'RELEASING.md', 'bench/README.md', ...markdownUnder('docs')];

/** The text without fenced code blocks (their lines become empty, so line numbers stay). */
function withoutFences(text: string): string[] {
	let fence: string | null = null;
	return text.split('\n').map((line) => {
		const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
		if (fence === null && marker) {
			fence = marker;
			return '';
		}
		if (fence !== null) {
			if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
			return '';
		}
		return line;
	});
}

/** Inline code spans removed: a `[x](y)` inside backticks is not a link. */
function withoutCodeSpans(line: string): string {
	return line.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length));
}

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, `-`, `_` and spaces kept), spaces to `-`. */
export function slugOf(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
		.replace(/<[^>]+>/g, '') // inline HTML
		.trim()
		.toLowerCase();
	return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors a Markdown file offers: its headings (duplicates get -1, -2, ...) and explicit ids. */
function anchorsOf(file: string): Set<string> {
	const cached = anchorCache.get(file);
	if (cached) return cached;
	const anchors = new Set<string>();
	const counts = new Map<string, number>();
	for (const line of withoutFences(fs.readFileSync(file, 'utf8'))) {
		const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
		if (heading !== undefined) {
			const slug = slugOf(heading);
			const seen = counts.get(slug) ?? 0;
			anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
			counts.set(slug, seen + 1);
		}
		for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
	}
	anchorCache.set(file, anchors);
	return anchors;
}

interface Link {
	file: string;
	line: number;
	target: string;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[label]: target`. */
function linksOf(file: string): Link[] {
	const links: Link[] = [];
	const lines = withoutFences(fs.readFileSync(path.join(ROOT, file), 'utf8'));
	lines.forEach((raw, index) => {
		const line = withoutCodeSpans(raw);
		const inline = /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
		for (const match of line.matchAll(inline)) links.push({ file, line: index + 1, target: match[1].replace(/^<|>$/g, '') });
		const definition = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
		if (definition) links.push({ file, line: index + 1, target: definition[1].replace(/^<|>$/g, '') });
	});
	return links;
}

/** Why a relative link does not resolve, or undefined when it does. */
function problemOf(link: Link): string | undefined {
	const hashAt = link.target.indexOf('#');
	const rawPath = hashAt === -1 ? link.target : link.target.slice(0, hashAt);
	const anchor = hashAt === -1 ? undefined : decodeURIComponent(link.target.slice(hashAt + 1));
	const targetFile = rawPath === '' ? path.join(ROOT, link.file) : path.resolve(path.dirname(path.join(ROOT, link.file)), decodeURIComponent(rawPath));
	if (!targetFile.startsWith(ROOT + path.sep)) return 'points outside the repository';
	if (!fs.existsSync(targetFile)) return `${path.relative(ROOT, targetFile)} does not exist`;
	if (anchor === undefined) return undefined;
	if (anchor === '') return 'empty anchor';
	if (!targetFile.endsWith('.md')) return `#${anchor} on a file that is not Markdown`;
	if (!anchorsOf(targetFile).has(anchor)) return `no heading #${anchor} in ${path.relative(ROOT, targetFile)}`;
	return undefined;
}

const ALL_LINKS = FILES.flatMap(linksOf);
const RELATIVE = ALL_LINKS.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link.target));

describe('documentation links', () => {
	it('finds the pages it checks', () => {
		for (const file of ['README.md', 'docs/credentials.md', 'docs/booking-requests-node.md', 'docs/booking-requests-trigger.md']) {
			expect(FILES).toContain(file);
		}
	});

	it('every relative link and #anchor resolves', () => {
		const broken = RELATIVE.flatMap((link) => {
			const problem = problemOf(link);
			return problem === undefined ? [] : [`${link.file}:${link.line} (${link.target}): ${problem}`];
		});
		printFigures(`[docs] ${RELATIVE.length} relative links and anchors checked in ${FILES.length} files (${ALL_LINKS.length - RELATIVE.length} external links not followed)`);
		expect(broken).toEqual([]);
		expect(RELATIVE.length).toBeGreaterThan(50);
	});

	it('the README is short enough to read on npm and in n8n', () => {
		const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
		expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
	});
});

describe('GitHub heading anchors', () => {
	it.each([
		['Queue mode: one rate limit across n8n processes', 'queue-mode-one-rate-limit-across-n8n-processes'],
		['What each item looks like (Simplify on)', 'what-each-item-looks-like-simplify-on'],
		['Customers, not sessions (retargeting)', 'customers-not-sessions-retargeting'],
		["Pacing at the server's arrival times", 'pacing-at-the-servers-arrival-times'],
		['`npm run bench`: the [results](x.md)', 'npm-run-bench-the-results'],
		['Troubleshooting and contract gaps', 'troubleshooting-and-contract-gaps'],
	])('%s -> #%s', (heading, slug) => {
		expect(slugOf(heading)).toBe(slug);
	});
});
