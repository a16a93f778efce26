import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../../shared/transport/errors';
import * as bookingForm from './bookingForm';
import * as bookingRequest from './bookingRequest';
import * as bookingSession from './bookingSession';
import * as businessProfile from './businessProfile';

type Operation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]>;

const OPERATIONS: Record<string, Record<string, Operation>> = {
	bookingRequest: {
		get: bookingRequest.get.execute,
		getAll: bookingRequest.getAll.execute,
		findByCustomer: bookingRequest.findByCustomer.execute,
	},
	bookingSession: { getAll: bookingSession.getAll.execute },
	bookingForm: { getAll: bookingForm.getAll.execute },
	businessProfile: { getAll: businessProfile.getAll.execute },
};

/**
 * Runs the chosen operation once per input item. Each API object becomes one output item paired with
 * the input item it came from. With "Continue On Fail", a failing item yields `{ error }` and the
 * others go on.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const resource = this.getNodeParameter('resource', itemIndex) as string;
			const operation = this.getNodeParameter('operation', itemIndex) as string;
			const run = OPERATIONS[resource]?.[operation];
			if (!run) {
				throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported for "${resource}"`, { itemIndex });
			}
			const results = await run.call(this, itemIndex);
			for (const json of results) output.push({ json, pairedItem: { item: itemIndex } });
		} catch (error) {
			if (this.continueOnFail()) {
				output.push({ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } });
				continue;
			}
			throw asNodeError(this.getNode(), error, itemIndex);
		}
	}
	return [output];
}
