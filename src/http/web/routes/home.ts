// The landing page: what the service does, the plans as their rows say, the prices of packs and plans.
import type { FastifyInstance } from 'fastify';
import { listPlans } from '../../../accounts/plans.ts';
import { listPrices, priceText } from '../../../payments/prices.ts';
import { checkoutAttempt } from '../../../payments/stripe.ts';
import { DomainError } from '../../../errors.ts';
import { handleError } from '../../api/errors.ts';
import { planLabel, type Pages } from '../pages.ts';
import { OPERATOR_MESSAGE, priceOffer } from './billing.ts';
import { SAMPLES } from './try.ts';

/** The sample gallery: each picture, its pre-rendered SVG (scripts/samples.ts) and its kind. */
const SAMPLE_CARDS = Object.entries(SAMPLES).map(([name, s]) => ({
  name,
  label: s.label,
  type: s.file.replace(/^.*\./, '').toUpperCase(),
  before: `/static/samples/${s.file}`,
  after: `/static/samples/${s.file.replace(/\.[^.]+$/, '.svg')}`,
}));

export function homeRoutes(app: FastifyInstance, pages: Pages): void {
  const { render, deps } = pages;
  app.get('/', async (request, reply) => {
    const [plans, prices] = await Promise.all([listPlans(deps.db), listPrices(deps.db, { activeOnly: true })]);
    const offers = prices.map(priceOffer);
    const planPrice = (name: string) => {
      const price = prices.find((p) => p.kind === 'plan' && p.plan === name);
      return price ? priceText(price) : name === 'free' ? 'free' : 'from the operator';
    };
    // As a price list reads: metered first, then by daily quota, no quota last.
    plans.sort((a, b) => Number(b.metered) - Number(a.metered) || (a.dailyQuota ?? Infinity) - (b.dailyQuota ?? Infinity));
    return render(
      request,
      reply,
      'home',
      {
        title: 'Raster to SVG',
        script: 'home.js',
        samples: SAMPLE_CARDS,
        plans: plans.map((plan) => ({ ...plan, label: planLabel(plan.name), price: planPrice(plan.name) })),
        // The pricing section's offers (home.eta includes pricing.eta).
        pricing: {
          packs: offers.filter((o) => o.kind === 'pack'),
          plans: offers.filter((o) => o.kind === 'plan').map((o) => ({ ...o, current: request.signedIn?.plan.name === o.plan })),
          paymentsEnabled: deps.payments !== undefined,
          operatorMessage: OPERATOR_MESSAGE,
          attempt: checkoutAttempt(undefined),
        },
        freeCredits: plans.find((plan) => plan.name === 'free')?.signupCredits ?? 0,
      },
      { session: false },
    );
  });

  // An unknown address: a browser (it asks for HTML) gets the page "Page not found"; a program,
  // and anything under /api/, the API's JSON error. Other methods fall to the root's handler.
  app.get('/*', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (path.startsWith('/api/') || !(request.headers.accept ?? '').includes('text/html')) {
      handleError(new DomainError('not_found', `route not found: ${request.method} ${path}`), request, reply);
      return reply;
    }
    return render(request, reply, 'message', { title: 'Not found', heading: 'Page not found', text: 'There is no page at this address.' }, { status: 404, session: false });
  });
}
