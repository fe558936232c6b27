import { defineConfig } from 'drizzle-kit';
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/schema.postgres.ts',
  out: './src/store/migrations/postgres',
});
