/**
 * CPU time per account inside one process where many tasks run at once, as n8n's main runs every
 * trigger's polls: each task runs in an account (AsyncLocalStorage), and every time the event loop
 * enters a callback of another account the process CPU clock is read and the time since the last
 * switch is charged to the account that was running. Work between callbacks (a response's parsing
 * before its callback, a garbage collection) goes to the account that ran last; time outside every
 * account is `unattributed`. The clock is `process.cpuUsage()` (user + system, every thread of the
 * process: V8's helper threads count too), read only when the account changes.
 *
 * The hook costs CPU itself (a call per promise reaction while enabled): accounts measured with the
 * same meter compare with each other, and the bench says what it adds.
 */
import { AsyncLocalStorage, createHook, type AsyncHook } from 'node:async_hooks';

export interface CpuAccount {
	label: string;
	/** CPU charged to this account, in microseconds. */
	micros: number;
}

const cpuNow = (): number => {
	const usage = process.cpuUsage();
	return usage.user + usage.system;
};

export class CpuMeter {
	private readonly storage = new AsyncLocalStorage<CpuAccount>();
	private readonly hook: AsyncHook;
	private current: CpuAccount | undefined;
	private mark = 0;
	private startedAt = 0;
	/** CPU spent outside every account while the meter ran (microseconds). */
	unattributed = 0;

	constructor() {
		this.hook = createHook({ before: () => this.enter(this.storage.getStore()) });
	}

	start(): void {
		this.current = undefined;
		this.unattributed = 0;
		this.startedAt = this.mark = cpuNow();
		this.hook.enable();
	}

	/** Stops the hook; returns the process CPU since `start` (microseconds). */
	stop(): number {
		this.enter(undefined);
		this.hook.disable();
		return this.mark - this.startedAt;
	}

	/** Runs `task` in `account`: its CPU, across every await, is charged there. */
	async charge<T>(account: CpuAccount, task: () => Promise<T>): Promise<T> {
		return await this.storage.run(account, async () => {
			this.enter(account);
			try {
				return await task();
			} finally {
				this.enter(undefined);
			}
		});
	}

	private enter(next: CpuAccount | undefined): void {
		if (next === this.current) return;
		const now = cpuNow();
		if (this.current) this.current.micros += now - this.mark;
		else this.unattributed += now - this.mark;
		this.current = next;
		this.mark = now;
	}
}

export const account = (label: string): CpuAccount => ({ label, micros: 0 });
