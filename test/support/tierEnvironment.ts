/**
 * jest's node environment, plus what a project refuses (jest.config.js, testEnvironmentOptions.refuse):
 *  - 'network' (unit, volume): any connection or listening socket fails the test (./noNetwork.ts);
 *  - 'services' (npm test and the other tiers that need Node alone): starting redis-server, PostgreSQL,
 *    Chromium, curl or an n8n install fails the test and names the npm script for it (./nodeAlone.ts).
 * Both patch Node's own modules, which every test file run by a jest worker shares: they are applied
 * when a file's environment is set up and taken back at its teardown, so the next file in the same
 * worker gets its own project's rules (npm test runs unit and integration files in the same workers).
 */
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment } from 'jest-environment-node';

import { refuseNetwork } from './noNetwork';
import { refuseSystemServices } from './nodeAlone';

type Refusal = 'network' | 'services';

export default class TierEnvironment extends TestEnvironment {
	private readonly refuse: Refusal[];
	private readonly testPath: string;
	private readonly undo: Array<() => void> = [];

	constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
		super(config, context);
		this.refuse = (config.projectConfig.testEnvironmentOptions.refuse as Refusal[] | undefined) ?? [];
		this.testPath = context.testPath.replace(`${config.projectConfig.rootDir}/`, '');
	}

	async setup(): Promise<void> {
		await super.setup();
		if (this.refuse.includes('network')) this.undo.push(refuseNetwork());
		if (this.refuse.includes('services')) this.undo.push(refuseSystemServices(this.testPath));
	}

	async teardown(): Promise<void> {
		for (const undo of this.undo.splice(0).reverse()) undo();
		await super.teardown();
	}
}
