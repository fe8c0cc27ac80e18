// drizzle-kit settings for the PostgreSQL migrations (`bun run db:generate` runs both dialects).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({ dialect: 'postgresql', schema: './src/db/pg-schema.ts', out: './drizzle/pg' });
