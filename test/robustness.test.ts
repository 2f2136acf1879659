import { badInputSweep } from './helpers/bad-input-sweep.js';

badInputSweep(0);
