/**
 * Figures a test measures along the way (calls per page, bytes of state, pacing, a table of polls),
 * for a person to read: the test asserts its own bounds on them. Printed with TEST_FIGURES=1
 * (`TEST_FIGURES=1 npx jest <file>`), which the scripts of the tiers that exist to measure set
 * (test:costs, test:volume, test:redis, test:fuzz); npm test prints none of them.
 */
import { envOverride } from '../../harness/env';

export function printFigures(text: string): void {
	if (envOverride('TEST_FIGURES') === '1') console.log(text);
}
