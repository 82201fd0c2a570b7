// The HTTP floor: a bare express 5 route answering the same JSON an echo plugin call answers.
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json());
app.post('/echo', (req, res) => {
  res.json({ success: true, data: (req.body as { params?: unknown }).params ?? null, error: null });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
