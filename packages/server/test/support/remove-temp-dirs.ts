/** A setup file (vitest runs it for every test file, shared worker or not): the file's temporary folders go when it is done. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.js';

afterAll(removeTempDirs);
