import type { BacklogShape, BacklogWorld } from '../../../harness/backlogShapes';
import { drainTable, pagesNeeded, SHAPES } from '../../../harness/backlogShapes';
import { commitLag, makeSettings, MIN, Runner, World } from '../../support/triggerWorld';

jest.setTimeout(600_000);
function modelWorld(world: World): BacklogWorld {
	const sessions = new Map<string, ReturnType<World['start']>>();
	return {
		advance: (ms) => world.advance(ms),
		draft: (customer) => { const s = world.start({}, { email: customer.email, phone: customer.phone }); sessions.set(s.id, s); return s.id; },
		book: (id) => void world.complete(sessions.get(id) as ReturnType<World['start']>),
		direct: (customer) => void world.addRequest({}, { email: customer.email, phone: customer.phone }),
	};
}
async function drain(shape: BacklogShape, lag: boolean, budget: number) {
	const world = new World();
	const runner = new Runner(world, makeSettings({ abandonedAfterMs: shape.abandonedAfterMinutes * MIN, skipIfBooked: true }));
	await runner.poll();
	if (lag) world.lag = commitLag();
	shape.build(modelWorld(world));
	world.lag = undefined;
	runner.log = [];
	const polls: Array<{ calls: number; events: number; reads: string[] }> = [];
	for (let i = 0; i < 60; i++) {
		const reads: string[] = [];
		const r = await runner.poll({ budget, secondsDate: process.env.SECONDS === "1", beforePage: (list, page) => { reads.push(`${list === 'sessions' ? 's' : 'r'}${page}`); world.advance(1000); } });
		polls.push({ calls: r.totalCalls, events: r.events.length, reads });
		if (!r.cut && r.events.length === 0) break;
		world.advance(MIN);
	}
	const calls = polls.slice(0, -1).reduce((s, p) => s + p.calls, 0);
	const ids = runner.log.map((e) => e.eventId);
	let order = 0; for (let i = 1; i < runner.log.length; i++) if (runner.log[i].at < runner.log[i - 1].at) order++;
	process.stdout.write(`${shape.name} lag=${lag} budget=${budget}: ${calls} calls / ${pagesNeeded(shape)} = ${(calls / pagesNeeded(shape)).toFixed(2)}; events ${ids.length} unique ${new Set(ids).size}; order violations ${order}\n${drainTable({ polls })}\n`);
}
const only = process.env.SHAPES?.split(',');
test.each(SHAPES.filter((s) => !only || only.includes(s.name)).map((s) => [s.name, s] as const))('%s', async (_n, shape) => {
	for (const lag of [false, true]) await drain(shape, lag, Number(process.env.BUDGET ?? 30));
});
