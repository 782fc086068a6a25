// tsc compiles the TypeScript but does not copy the icons that the node and
// credential descriptions point at (`file:…svg`), nor the codex files
// (`<Node>.node.json`: categories and documentation links) that n8n reads
// beside each `<Node>.node.js`; n8n needs both beside the .js.
const { src, dest } = require('gulp');

function buildIcons() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
