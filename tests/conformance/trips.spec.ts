// The trips route group: every check is generated from contracts/requirements.yaml.
import { defineGroupSuite } from '../../src/engine/define-suite';

defineGroupSuite('trips');
