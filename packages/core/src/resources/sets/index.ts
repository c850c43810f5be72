import type { ResourceSet } from '../types';
import { cgtResourceSet } from './cgt';
import { clembenchPrivatesharedResourceSet } from './clembench-privateshared';
import { llmDstEvalResourceSet } from './llm-dst-eval';
import { multiwozResourceSet } from './multiwoz';

/** The built-in catalogue of resource sets. Each package's issue registers the sets it needs here. */
export const builtinResourceSets: ResourceSet[] = [
  cgtResourceSet,
  clembenchPrivatesharedResourceSet,
  llmDstEvalResourceSet,
  multiwozResourceSet,
];
