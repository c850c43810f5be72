import type { ResourceSet } from '../types';
import { cgtResourceSet } from './cgt';

/** The built-in catalogue of resource sets. Each package's issue registers the sets it needs here. */
export const builtinResourceSets: ResourceSet[] = [cgtResourceSet];
