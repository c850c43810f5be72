/**
 * Post-install steps of resource sets whose final layout is derived from the downloaded files
 * (`ResourceSet.prepare`). Each entry loads its package lazily.
 */
export const preparers: Record<string, () => Promise<(dir: string) => Promise<void>>> = {
  multiwoz: () => import('@eval/multiwoz').then((m) => m.prepareMultiwozResource),
};
