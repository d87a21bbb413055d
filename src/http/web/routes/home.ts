// The landing page: what the service does, the plans as their rows say, the credit packs.
import type { FastifyInstance } from 'fastify';
import { CREDIT_PACKS } from '../../../accounts/credits.ts';
import { listPlans } from '../../../accounts/plans.ts';
import { planLabel, type Pages } from '../pages.ts';

export function homeRoutes(app: FastifyInstance, pages: Pages): void {
  const { render, deps } = pages;
  app.get('/', async (request, reply) => {
    const plans = await listPlans(deps.db);
    // As a price list reads: metered first, then by daily quota, no quota last.
    plans.sort((a, b) => Number(b.metered) - Number(a.metered) || (a.dailyQuota ?? Infinity) - (b.dailyQuota ?? Infinity));
    return render(
      request,
      reply,
      'home',
      {
        title: 'Raster to SVG',
        plans: plans.map((plan) => ({ ...plan, label: planLabel(plan.name) })),
        packs: CREDIT_PACKS,
        freeCredits: plans.find((plan) => plan.name === 'free')?.signupCredits ?? 0,
      },
      { session: false },
    );
  });
}
