// Child-process entry: runs one benchmark row and prints its result as JSON on the last line.
import { runRow } from './rows';

const [name, arg] = process.argv.slice(2);
runRow(name, Number(arg))
	.then((rows) => {
		process.stdout.write(`\n${JSON.stringify(rows)}\n`);
		process.exit(0);
	})
	.catch((error: unknown) => {
		console.error(error);
		process.exit(1);
	});
