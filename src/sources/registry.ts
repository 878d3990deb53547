import type { Connector, ConnectorName } from './types';
import { cisaKev } from './cisa-kev';
import { eonet } from './eonet';
import { gdacs } from './gdacs';
import { gdelt } from './gdelt';
import { nvd } from './nvd';
import { nws } from './nws';
import { reliefweb } from './reliefweb';
import { rss } from './rss';
import { usgs } from './usgs';
import { whoDon } from './who-don';

/** Every connector by name. Filled in as connectors land; `connectorFor` is the one lookup. */
const connectors: Partial<Record<ConnectorName, Connector>> = {
  usgs,
  rss,
  gdacs,
  eonet,
  nws,
  'cisa-kev': cisaKev,
  nvd,
  reliefweb,
  'who-don': whoDon,
  gdelt,
};

/** The connector of that name, or undefined when none is registered. */
export const connectorFor = (name: ConnectorName): Connector | undefined => connectors[name];
