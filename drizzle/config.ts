// drizzle-kit settings: `bun run db:generate` writes SQL migrations next to this file.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({ dialect: 'sqlite', schema: './src/db/schema.ts', out: './drizzle' });
