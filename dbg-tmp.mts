import { renderPlaygroundPage } from './server/http/playground-page.js';
const html = await renderPlaygroundPage();
const i = html.lastIndexOf('Energy plan data playground'); console.log(html.slice(i - 200, i + 1500));
