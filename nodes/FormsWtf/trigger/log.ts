/** The trigger's warnings in n8n's log, naming the workflow and the node. */
import type { IPollFunctions } from 'n8n-workflow';

export function warn(context: IPollFunctions, message: string): void {
	context.logger.warn(`Forms.wtf Trigger: ${message}`, {
		workflowId: context.getWorkflow().id,
		node: context.getNode().name,
	});
}
