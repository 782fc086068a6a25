/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The suite `agent`: the Forms.wtf node as a tool of n8n's AI Agent, in a real n8n 2.41.
 *
 * The workflow is the example examples/ai-agent-form-responses.json (an AI Agent with an OpenAI
 * Chat Model and three Forms.wtf tools), started by a Manual Trigger with a fixed prompt instead
 * of its Chat Trigger, with two tools more (Export responses, described automatically, and Create
 * form, whose title the model chooses). Its OpenAI credential's Base URL points at a stand-in
 * of OpenAI's chat completions API (openAiStandIn.ts) that answers with scripted tool calls and
 * records what it was sent. One `n8n execute` runs the conversation; the checks read what the
 * model was told: each tool's name, description and parameters, each tool call's result, the
 * errors of bad calls, and that the Forms.wtf API key is in none of it.
 *
 * Nothing is set for the package to be a tool: community nodes with `usableAsTool` are tools in
 * every n8n from 1.85 on (N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE, added shortly before in
 * n8n-io/n8n PR #13075, was removed in 1.85 by PR #14042); the suite checks it is not set.
 */
import { readFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';
import { resolve } from 'path';

import type { RequestLogEntry, RunningHarness } from '../harness';
import { N8nInstance } from './n8nInstance';
import type { RawRunData } from './n8nInstance';
import type { ChatRequest, JsonSchema, Turn } from './openAiStandIn';
import { OpenAiStandIn, textOf, toolResult } from './openAiStandIn';
import { check, log } from './report';
import type { E2eContext } from './run';
import { CRED_TEAM, localCredentials, outputOf, PACKAGE } from './workflows';

export const AGENT_N8N = process.env.FORMSWTF_E2E_AGENT_N8N ?? '2.41.1';
const LABEL = `n8n ${AGENT_N8N}, AI Agent`;
const EXAMPLE = resolve(__dirname, '..', '..', 'examples', 'ai-agent-form-responses.json');
const WORKFLOW_ID = 'fwtfE2eAgent0001';
const CRED_OPENAI = { id: 'fwtfE2eOpenAi001', name: 'OpenAI (stand-in)' };
const PROMPT =
	'How many people answered the feedback survey since the start of the year, and what did they say?';
const FINAL = 'Scripted final answer: the stand-in read every tool result.';
const AGENT_FORM_TITLE = 'Team lunch poll';
/** The tool results the conversation must fit in; a tool answer is kept under about 50,000 characters. */
const TOOL_ANSWER_MAX = 51_000;

interface ExampleNode extends IDataObject {
	name: string;
	type: string;
	parameters: IDataObject;
}

/**
 * The example as users import it, with its credentials pointed at the local API and the
 * stand-in, a Manual Trigger with a fixed prompt in place of the Chat Trigger, and one more
 * tool: Export responses of a fixed form, with n8n's automatic description.
 */
function agentWorkflow(exportFormId: string): {
	workflow: IDataObject;
	example: { nodes: ExampleNode[] };
} {
	const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as IDataObject & {
		nodes: ExampleNode[];
		connections: IDataObject;
	};
	const chatTrigger = example.nodes.find(
		(node) => node.type === '@n8n/n8n-nodes-langchain.chatTrigger',
	);
	if (!chatTrigger) throw new Error('the example has no Chat Trigger');
	const nodes: ExampleNode[] = example.nodes.map((node) => {
		if (node === chatTrigger) {
			return {
				id: node.id,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: node.position,
				parameters: {},
			};
		}
		if (node.type === '@n8n/n8n-nodes-langchain.agent') {
			const options = { ...(node.parameters.options as IDataObject), maxIterations: 20 };
			return {
				...node,
				parameters: { ...node.parameters, promptType: 'define', text: PROMPT, options },
			};
		}
		if (node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi')
			return { ...node, credentials: { openAiApi: CRED_OPENAI } };
		if (node.type.startsWith(`${PACKAGE}.`))
			return { ...node, credentials: { formsWtfApi: CRED_TEAM } };
		return node;
	});
	nodes.push({
		id: 'e2e-export-tool',
		name: 'Export responses',
		type: `${PACKAGE}.formsWtfTool`,
		typeVersion: 1,
		position: [780, 240],
		parameters: {
			resource: 'response',
			operation: 'export',
			formId: { __rl: true, mode: 'id', value: exportFormId },
		},
		credentials: { formsWtfApi: CRED_TEAM },
	});
	nodes.push({
		id: 'e2e-create-form-tool',
		name: 'Create form',
		type: `${PACKAGE}.formsWtfTool`,
		typeVersion: 1,
		position: [900, 240],
		parameters: {
			resource: 'form',
			operation: 'create',
			title: "={{ $fromAI('Title', 'The new form’s title', 'string') }}",
		},
		credentials: { formsWtfApi: CRED_TEAM },
	});
	const connections = { ...example.connections } as Record<string, unknown>;
	connections.Start = connections[chatTrigger.name];
	delete connections[chatTrigger.name];
	for (const tool of ['Export responses', 'Create form'])
		connections[tool] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	return { workflow: { ...example, id: WORKFLOW_ID, active: false, nodes, connections }, example };
}

/** Every response of a form, straight from the local API. */
async function responsesOf(
	harness: RunningHarness,
	formId: string,
): Promise<Array<{ id: string; submittedAt: string }>> {
	const all: Array<{ id: string; submittedAt: string }> = [];
	for (let offset = 0; ; offset += 1000) {
		const response = await fetch(
			`${harness.baseUrl}/forms/${formId}/responses?limit=1000&offset=${offset}`,
			{
				headers: { Authorization: `Bearer ${harness.keys.team}` },
			},
		);
		const page = (await response.json()) as {
			responses: Array<{ id: string; submittedAt: string }>;
			hasMore: boolean;
		};
		all.push(...page.responses);
		if (!page.hasMore) return all;
	}
}

function parsed(text: string | undefined): unknown {
	try {
		return text === undefined ? undefined : JSON.parse(text);
	} catch {
		return text;
	}
}

function schemaOf(request: ChatRequest | undefined, tool: string): JsonSchema | undefined {
	return request?.tools?.find((candidate) => candidate.function.name === tool)?.function.parameters;
}

function describeParameters(schema: JsonSchema | undefined): string {
	return Object.entries(schema?.properties ?? {})
		.map(([key, property]) => `${key}: ${property.type}`)
		.join(', ');
}

export async function agentSuite({ tarball, harness }: E2eContext): Promise<void> {
	console.log(`\n${LABEL}: the Forms.wtf node as a tool, the model stood in for`);
	const began = Date.now();
	const feedback = await harness.control.form('feedback');
	const large = await harness.control.form('large');
	const feedbackResponses = await responsesOf(harness, feedback.id);
	// A Since that leaves a dozen responses of the feedback form: more than the call's Limit of 3.
	const since = feedbackResponses
		.map((response) => response.submittedAt)
		.sort()
		.at(-13) as string;

	// The conversation: each turn is the model's answer to the request before it.
	const turns: Turn[] = [
		{ toolCalls: [{ name: 'List_forms', arguments: {} }] },
		{ toolCalls: [{ name: 'Get_form', arguments: { Form: feedback.id } }] },
		{
			toolCalls: [
				{
					name: 'Get_responses',
					arguments: { Form: feedback.id, Limit: 3, Offset: 0, Since: since },
				},
			],
		},
		{
			toolCalls: [
				{ name: 'Get_responses', arguments: { Form: large.id, Limit: 5000, Offset: 0, Since: '' } },
			],
		},
		{
			toolCalls: [
				{
					name: 'Get_responses',
					arguments: { Form: 'no-such-form', Limit: 5, Offset: 0, Since: '' },
				},
			],
		},
		{
			toolCalls: [
				{
					name: 'Get_responses',
					arguments: { Form: feedback.id, Limit: 5, Offset: 0, Since: 'last Tuesday' },
				},
			],
		},
		{ toolCalls: [{ name: 'Export_responses', arguments: {} }] },
		{ toolCalls: [{ name: 'Create_form', arguments: { Title: AGENT_FORM_TITLE } }] },
		{ content: FINAL },
	];
	const standIn = new OpenAiStandIn((_request, index) => {
		const turn = turns[index];
		if (!turn) throw new Error(`no turn scripted for request ${index + 1}`);
		return turn;
	});
	const openAiUrl = await standIn.start();
	const instance = await N8nInstance.prepare(AGENT_N8N);
	try {
		check(
			`${LABEL}: n8n runs without N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE (community tools are always allowed since n8n 1.85)`,
			instance.env.N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE === undefined,
		);
		await instance.installPackage(tarball, PACKAGE);
		await instance.importJson('credentials', [
			...localCredentials(harness),
			{
				...CRED_OPENAI,
				type: 'openAiApi',
				data: { apiKey: 'sk-stand-in-not-a-real-key', url: openAiUrl },
			},
		]);
		const { workflow, example } = agentWorkflow(feedback.id);
		await instance.importJson('workflow', workflow);
		await harness.control.clearRequestLog();
		log(
			`set up in ${Math.round((Date.now() - began) / 1000)} s; running the conversation with n8n execute`,
		);
		const run = await instance.execute(WORKFLOW_ID);
		const apiRequests = await harness.control.requestLog();
		const formsAfter = await harness.control.listForms();
		checkConversation({
			run,
			standIn,
			example,
			harness,
			feedback,
			large,
			since,
			feedbackResponses,
			apiRequests,
			madeForm: formsAfter.find((made) => made.title === AGENT_FORM_TITLE),
		});
	} catch (error) {
		check(`${LABEL}: end-to-end run`, false, (error as Error).stack ?? String(error));
	} finally {
		await instance.dispose();
		await standIn.close();
	}
	log(`the agent suite took ${Math.round((Date.now() - began) / 1000)} s`);
}

interface Conversation {
	run: { ok: boolean; data?: RawRunData; output: string };
	standIn: OpenAiStandIn;
	example: { nodes: ExampleNode[] };
	harness: RunningHarness;
	feedback: { id: string; title: string };
	large: { id: string; responseCount: number };
	since: string;
	feedbackResponses: Array<{ id: string; submittedAt: string }>;
	apiRequests: RequestLogEntry[];
	/** The form the model made, as Forms.wtf then holds it. */
	madeForm?: { id: string };
}

function checkConversation(c: Conversation): void {
	const { run, standIn, harness } = c;
	const chats = standIn.chats;
	const agentOutput = outputOf(run.data, 'AI Agent')[0]?.json.output;
	check(
		`${LABEL}: the execution succeeds and the agent answers with the model's final text`,
		run.ok && !run.data?.data?.resultData?.error && agentOutput === FINAL,
		run.ok
			? `${chats.length} requests to the model; output: ${String(agentOutput).slice(0, 120)}`
			: run.output.slice(-1500),
	);

	// 1. What the model is told about each tool.
	const first = chats[0];
	const tools = first?.tools ?? [];
	log(
		`tools the model receives: ${tools.map((tool) => `${tool.function.name}(${describeParameters(tool.function.parameters)})`).join('; ')}`,
	);
	for (const tool of tools) log(`  ${tool.function.name}: "${tool.function.description}"`);
	const exampleDescription = (name: string) =>
		c.example.nodes.find((node) => node.name === name)?.parameters.toolDescription;
	check(
		`${LABEL}: the model receives one tool per Forms.wtf node, named after the node`,
		JSON.stringify(tools.map((tool) => tool.function.name).sort()) ===
			JSON.stringify([
				'Create_form',
				'Export_responses',
				'Get_form',
				'Get_responses',
				'List_forms',
			]),
		tools.map((tool) => tool.function.name).join(', '),
	);
	check(
		`${LABEL}: each tool's description is the one its node gives (set manually in the example)`,
		['List forms', 'Get form', 'Get responses'].every(
			(name) =>
				tools.find((tool) => tool.function.name === name.replace(' ', '_'))?.function
					.description === exampleDescription(name),
		),
	);
	check(
		`${LABEL}: a tool described automatically gets its operation's action: "Export responses in Forms.wtf"`,
		tools.find((tool) => tool.function.name === 'Export_responses')?.function.description ===
			'Export responses in Forms.wtf',
	);
	const responsesSchema = schemaOf(first, 'Get_responses');
	const properties = responsesSchema?.properties ?? {};
	const expectedTypes = { Form: 'string', Limit: 'number', Offset: 'number', Since: 'string' };
	check(
		`${LABEL}: Get responses takes Form, Limit, Offset and Since, typed, each with its description from $fromAI`,
		JSON.stringify(Object.keys(properties).sort()) === JSON.stringify(Object.keys(expectedTypes)) &&
			Object.entries(expectedTypes).every(
				([key, type]) =>
					properties[key]?.type === type && (properties[key]?.description ?? '').length > 40,
			),
		describeParameters(responsesSchema),
	);
	check(
		`${LABEL}: Since tells the model the format (ISO 8601, UTC, an example); Limit its range`,
		/ISO 8601/.test(properties.Since?.description ?? '') &&
			/2025-05-01T00:00:00Z/.test(properties.Since?.description ?? '') &&
			/1 to 100/.test(properties.Limit?.description ?? ''),
	);
	check(
		`${LABEL}: Get form takes only Form; List forms and the fixed Export take nothing`,
		describeParameters(schemaOf(first, 'Get_form')) === 'Form: string' &&
			describeParameters(schemaOf(first, 'List_forms')) === '' &&
			describeParameters(schemaOf(first, 'Export_responses')) === '',
	);

	// 2. Each call's result, in the request that follows it. Call ids: call_<turn>_0.
	const result = (turn: number) => toolResult(chats[turn], `call_${turn}_0`);
	const forms = parsed(result(1)) as IDataObject[] | undefined;
	check(
		`${LABEL}: List forms: the model gets the account's forms with their ids and titles`,
		Array.isArray(forms) &&
			forms.some((form) => form.id === c.feedback.id && form.title === c.feedback.title),
		`${Array.isArray(forms) ? forms.length : 0} forms`,
	);
	const form = (parsed(result(2)) as IDataObject[] | undefined)?.[0];
	check(
		`${LABEL}: Get form: the model gets the form with its questions`,
		form?.id === c.feedback.id && Array.isArray(form.questions) && form.questions.length > 0,
		`${Array.isArray(form?.questions) ? form.questions.length : 0} questions`,
	);
	const sinceAnswer = (parsed(result(3)) as IDataObject[] | undefined)?.[0] as
		(IDataObject & { responses?: IDataObject[] }) | undefined;
	const sent = c.apiRequests.find(
		(entry) =>
			entry.path.endsWith(`/forms/${c.feedback.id}/responses`) && entry.query.since !== undefined,
	);
	const newer = c.feedbackResponses.filter((response) => response.submittedAt > c.since).length;
	check(
		`${LABEL}: Get responses since a date with a limit: the node sends the model's Since and Limit to Forms.wtf`,
		sent?.query.since === new Date(c.since).toISOString() &&
			sent?.query.limit === '4' &&
			sent?.query.offset === '0',
		sent
			? `GET …/responses?${new URLSearchParams(sent.query as Record<string, string>).toString()}`
			: 'no such request',
	);
	check(
		`${LABEL}: … and the model gets 3 responses after that date, answers by question, and that more exist`,
		sinceAnswer?.returned === 3 &&
			sinceAnswer.hasMore === true &&
			sinceAnswer.nextOffset === 3 &&
			!('total' in sinceAnswer) &&
			(sinceAnswer.responses ?? []).every(
				(response) =>
					String(response.submittedAt) > c.since &&
					typeof response.answers === 'object' &&
					!Array.isArray(response.answers),
			),
		`${newer} responses after ${c.since}; answer ${JSON.stringify({ ...sinceAnswer, responses: `[${sinceAnswer?.responses?.length ?? 0}]` })}`,
	);
	const bigText = result(4) ?? '';
	const big = (parsed(bigText) as IDataObject[] | undefined)?.[0] as
		(IDataObject & { responses?: IDataObject[] }) | undefined;
	check(
		`${LABEL}: Get responses with Limit 5000 on a form of ${c.large.responseCount}: 100 responses, a count and a note on reading on`,
		big?.returned === 100 &&
			big.responses?.length === 100 &&
			big.hasMore === true &&
			big.nextOffset === 100 &&
			big.total === c.large.responseCount &&
			/call again with Offset 100/.test(String(big.note)) &&
			bigText.length <= TOOL_ANSWER_MAX,
		`${bigText.length} characters; note: ${String(big?.note)}`,
	);
	const errorOf = (turn: number) =>
		String((parsed(result(turn)) as IDataObject[] | undefined)?.[0]?.error ?? result(turn));
	const unknown = errorOf(5);
	check(
		`${LABEL}: an unknown form comes back to the model as an error it can act on`,
		unknown.startsWith('Form "no-such-form" was not found. Check the form ID'),
		unknown.slice(0, 300),
	);
	const badDate = errorOf(6);
	check(
		`${LABEL}: a Since that is not a date comes back as an error that gives the format`,
		badDate.startsWith(
			'"Since" is not a date. Got "last Tuesday". Use a date such as 2025-05-01T09:30:00Z',
		),
		badDate.slice(0, 300),
	);
	const exported = (parsed(result(7)) as IDataObject[] | undefined)?.[0];
	check(
		`${LABEL}: Export as a tool: the model gets the file's name, type and size, not the file`,
		typeof exported?.fileName === 'string' &&
			exported.mimeType === 'text/csv' &&
			exported.formId === c.feedback.id,
		JSON.stringify(exported),
	);
	const created = (parsed(result(8)) as IDataObject[] | undefined)?.[0];
	check(
		`${LABEL}: Create form as a tool: the form gets the title the model chose, and Forms.wtf has it`,
		created?.title === AGENT_FORM_TITLE &&
			c.madeForm !== undefined &&
			created.id === c.madeForm.id &&
			describeParameters(schemaOf(first, 'Create_form')) === 'Title: string',
		JSON.stringify(created),
	);
	check(
		`${LABEL}: the failed calls did not fail the execution; the model went on to its final answer`,
		chats.length === 9 && run.ok,
		`${chats.length} requests`,
	);

	// 3. The API key appears in nothing the model is sent.
	const key = harness.keys.team;
	check(
		`${LABEL}: the Forms.wtf API key is in no request to the model (${standIn.requests.length} requests)`,
		standIn.requests.length > 0 && standIn.requests.every((request) => !request.raw.includes(key)),
	);
	check(
		`${LABEL}: the prompt and the system message reach the model`,
		textOf(first?.messages.find((message) => message.role === 'user')).includes(PROMPT) &&
			/Forms\.wtf tools/.test(textOf(first?.messages.find((message) => message.role === 'system'))),
	);
}
