/**
 * The forms of the seeded dataset. Titles, questions and sizes are fixed here so docs and
 * tests can name them; ids, timestamps and responses come from the seed (see data.ts).
 * Together the demo account's forms use all 21 question types.
 */
import type { FormOwner, GateRule, QuestionType, Workspace } from './types';

export interface QuestionTemplate {
	type: QuestionType;
	label: string;
	required: boolean;
	description?: string;
	options?: string[];
}

export interface FormFixture {
	/** Stable name, independent of the seed. */
	fixture: string;
	title: string;
	slug: string;
	owner: FormOwner;
	workspace: Workspace;
	published: boolean;
	responses: number;
	/** Days before the data anchor the form was created, and last edited. */
	createdDaysAgo: number;
	updatedDaysAgo: number;
	questions: QuestionTemplate[];
	gateRules: GateRule[];
}

/** All generated timestamps lie before this instant, so seeded data never depends on the host clock. */
export const DATA_ANCHOR_MS = Date.UTC(2025, 5, 30, 12, 0, 0, 0);

const FEATURES = [
	'Token gating',
	'Wallet login',
	'CSV export',
	'Webhooks',
	'Merkle export',
	'Analytics',
];

export const DEMO_FIXTURES: FormFixture[] = [
	{
		fixture: 'feedback',
		title: 'Community Feedback Survey',
		slug: 'community-feedback-survey',
		owner: 'demo',
		workspace: 'personal',
		published: true,
		responses: 2500,
		createdDaysAgo: 180,
		updatedDaysAgo: 12,
		questions: [
			{ type: 'WELCOME_SCREEN', label: 'Welcome! This takes two minutes.', required: false },
			{ type: 'SHORT_TEXT', label: 'What should we call you?', required: true },
			{
				type: 'EMAIL',
				label: 'Email',
				required: false,
				description: 'Only used to follow up on your answers.',
			},
			{ type: 'RATING', label: 'How would you rate the product?', required: true },
			{ type: 'NPS', label: 'How likely are you to recommend us to a friend?', required: true },
			{
				type: 'MULTIPLE_CHOICE',
				label: 'How did you hear about us?',
				required: true,
				options: ['Twitter / X', 'Farcaster', 'A friend', 'Conference', 'Search engine'],
			},
			{ type: 'CHECKBOX', label: 'Which features do you use?', required: false, options: FEATURES },
			{ type: 'STATEMENT', label: 'A few open questions to finish.', required: false },
			// Two questions with the same label on purpose: clients must keep both answers.
			{ type: 'SHORT_TEXT', label: 'Comments', required: false, description: 'About the product' },
			{ type: 'LONG_TEXT', label: 'Comments', required: false, description: 'About the community' },
			{ type: 'YES_NO', label: 'May we contact you?', required: true },
			{ type: 'END_SCREEN', label: 'Thanks for your feedback!', required: false },
		],
		gateRules: [],
	},
	{
		fixture: 'allowlist',
		title: 'Genesis NFT Allowlist',
		slug: 'genesis-nft-allowlist',
		owner: 'demo',
		workspace: 'team',
		published: true,
		responses: 400,
		createdDaysAgo: 90,
		updatedDaysAgo: 60,
		questions: [
			{ type: 'WALLET_ADDRESS', label: 'Mint wallet', required: true },
			{ type: 'ENS_NAME', label: 'ENS name', required: false },
			{ type: 'SHORT_TEXT', label: 'Twitter handle', required: false },
			{ type: 'URL', label: 'Link to your best work', required: false },
			{
				type: 'DROPDOWN',
				label: 'Preferred chain',
				required: true,
				options: ['Ethereum', 'Base', 'Optimism', 'Arbitrum'],
			},
			{
				type: 'LEGAL',
				label: 'I accept the allowlist terms',
				required: true,
				description: 'One allowlist spot per wallet.',
			},
		],
		gateRules: [
			{
				chain: 'ethereum',
				contractAddress: '0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d',
				tokenType: 'ERC721',
				minBalance: 1,
			},
			{
				chain: 'base',
				contractAddress: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
				tokenType: 'ERC20',
				minBalance: 100,
			},
		],
	},
	{
		fixture: 'rsvp',
		title: 'ETHDenver Side Event RSVP',
		slug: 'ethdenver-side-event-rsvp',
		owner: 'demo',
		workspace: 'team',
		published: false,
		responses: 0,
		createdDaysAgo: 5,
		updatedDaysAgo: 1,
		questions: [
			{ type: 'SHORT_TEXT', label: 'Full name', required: true },
			{ type: 'EMAIL', label: 'Email', required: true },
			{ type: 'PHONE', label: 'Phone (for day-of updates)', required: false },
			{ type: 'DATE', label: 'Which day will you come?', required: true },
			{ type: 'NUMBER', label: 'Number of guests', required: true },
			{ type: 'YES_NO', label: 'Vegetarian meal?', required: false },
		],
		gateRules: [],
	},
	{
		fixture: 'research',
		title: 'Product Research Q3',
		slug: 'product-research-q3',
		owner: 'demo',
		workspace: 'personal',
		published: true,
		responses: 180,
		createdDaysAgo: 45,
		updatedDaysAgo: 44,
		questions: [
			{
				type: 'OPINION_SCALE',
				label: 'How easy was onboarding?',
				required: true,
				description: '1 = very hard, 10 = very easy',
			},
			// NUMBER answers are sometimes JSON numbers instead of strings (clients must pass them through).
			{ type: 'NUMBER', label: 'How many forms do you run per month?', required: true },
			{ type: 'DATE', label: 'When did you start using forms.wtf?', required: false },
			{ type: 'PHONE', label: 'Phone number for a call', required: false },
			{
				type: 'DROPDOWN',
				label: 'Team size',
				required: true,
				options: ['Just me', '2-10', '11-50', '51+'],
			},
			// FILE_UPLOAD answers are sometimes arrays of URLs instead of one string.
			{ type: 'FILE_UPLOAD', label: 'Screenshot of your dashboard', required: false },
			{ type: 'RATING', label: 'Rate the export feature', required: false },
		],
		gateRules: [],
	},
	{
		fixture: 'bugs',
		title: 'Bug Reports',
		slug: 'bug-reports',
		owner: 'demo',
		workspace: 'team',
		published: true,
		responses: 35,
		createdDaysAgo: 30,
		updatedDaysAgo: 2,
		questions: [
			{ type: 'SHORT_TEXT', label: 'Summary', required: true },
			{ type: 'LONG_TEXT', label: 'Steps to reproduce', required: true },
			{ type: 'URL', label: 'Page where it happened', required: false },
			{ type: 'FILE_UPLOAD', label: 'Attachments', required: false },
			{ type: 'EMAIL', label: 'Email', required: false },
		],
		gateRules: [
			{
				chain: 'polygon',
				contractAddress: '0x2953399124f0cbb46d2cbacd8a89cf0599974963',
				tokenType: 'ERC1155',
				minBalance: 1,
				tokenId: '42',
			},
		],
	},
	{
		fixture: 'waitlist',
		title: 'Beta Waitlist (closed)',
		slug: 'beta-waitlist-closed',
		owner: 'demo',
		workspace: 'personal',
		published: false,
		responses: 60,
		createdDaysAgo: 300,
		updatedDaysAgo: 200,
		questions: [
			{ type: 'EMAIL', label: 'Email', required: true },
			{ type: 'WALLET_ADDRESS', label: 'Wallet for early access', required: false },
			{ type: 'YES_NO', label: 'Are you a developer?', required: true },
		],
		gateRules: [],
	},
];

/** Added only when `largeFormResponses` > 0. */
export function largeFixture(responses: number): FormFixture {
	return {
		fixture: 'large',
		title: 'Airdrop Eligibility Check',
		slug: 'airdrop-eligibility-check',
		owner: 'demo',
		workspace: 'team',
		published: true,
		responses,
		createdDaysAgo: 400,
		updatedDaysAgo: 399,
		questions: [
			{ type: 'WALLET_ADDRESS', label: 'Claim wallet', required: true },
			{ type: 'SHORT_TEXT', label: 'Discord username', required: false },
			{ type: 'YES_NO', label: 'Did you bridge to Base?', required: true },
			{ type: 'NPS', label: 'How likely are you to stay after the airdrop?', required: true },
			{ type: 'CHECKBOX', label: 'Which apps did you use?', required: false, options: FEATURES },
			{ type: 'LEGAL', label: 'I confirm I am not a sybil', required: true },
		],
		gateRules: [],
	};
}

/** Owned by a second account: the demo keys must get 404 for it. */
export const FOREIGN_FIXTURE: FormFixture = {
	fixture: 'foreign',
	title: "Other Team's Private Form",
	slug: 'other-teams-private-form',
	owner: 'other',
	workspace: 'team',
	published: true,
	responses: 25,
	createdDaysAgo: 20,
	updatedDaysAgo: 20,
	questions: [
		{ type: 'SHORT_TEXT', label: 'Secret', required: true },
		{ type: 'RATING', label: 'Mood', required: true },
	],
	gateRules: [],
};
