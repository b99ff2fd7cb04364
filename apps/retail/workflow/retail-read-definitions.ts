import type { ToolDefinition } from '../../../src/contract/index.js';
import { RETAIL_TOOLS, RETAIL_TOOL_VERSION } from './retail-tool-names.js';
import { MAX_TEXT_LENGTH, ORDER_ID, USER_ID, closedParameters, field } from './retail-parameters.js';

/** A read definition (the benchmark's READ and GENERIC tools: they change no data). */
function read(
  name: string,
  description: string,
  properties: Record<string, Record<string, unknown>>,
): ToolDefinition {
  return {
    name,
    version: RETAIL_TOOL_VERSION,
    description,
    effect: 'read',
    parameters: closedParameters(properties),
  };
}

/**
 * The nine retail tools that change nothing, with the benchmark's descriptions: its seven READ tools
 * and its two GENERIC ones (`calculate`, `transfer_to_human_agents`), which τ²-bench does not count
 * as state changes either. Pure data, sandbox-safe.
 */
export function retailReadDefinitions(): ToolDefinition[] {
  return [
    read(RETAIL_TOOLS.calculate, 'Calculate the result of a mathematical expression.', {
      expression: field(
        "The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.",
        MAX_TEXT_LENGTH,
      ),
    }),
    read(
      RETAIL_TOOLS.findUserIdByNameZip,
      'Find user id by first name, last name, and zip code. If the user is not found, the function will return an error message. By default, find user id by email, and only call this function if the user is not found by email or cannot remember email.',
      {
        first_name: field("The first name of the customer, such as 'John'."),
        last_name: field("The last name of the customer, such as 'Doe'."),
        zip: field("The zip code of the customer, such as '12345'."),
      },
    ),
    read(
      RETAIL_TOOLS.findUserIdByEmail,
      'Find user id by email. If the user is not found, the function will return an error message.',
      { email: field("The email of the user, such as 'something@example.com'.") },
    ),
    read(RETAIL_TOOLS.getOrderDetails, 'Get the status and details of an order.', { order_id: ORDER_ID }),
    read(RETAIL_TOOLS.getProductDetails, 'Get the inventory details of a product.', {
      product_id: field(
        "The product id, such as '6086499569'. Be careful the product id is different from the item id.",
      ),
    }),
    read(RETAIL_TOOLS.getItemDetails, 'Get the inventory details of an item.', {
      item_id: field(
        "The item id, such as '6086499569'. Be careful the item id is different from the product id.",
      ),
    }),
    read(RETAIL_TOOLS.getUserDetails, 'Get the details of a user, including their orders.', {
      user_id: USER_ID,
    }),
    read(
      RETAIL_TOOLS.listAllProductTypes,
      'List the name and product id of all product types. Each product type has a variety of different items with unique item ids and options. There are only 50 product types in the store.',
      {},
    ),
    read(
      RETAIL_TOOLS.transferToHumanAgents,
      "Transfer the user to a human agent, with a summary of the user's issue.\nOnly transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and the available tools, you cannot solve the user's issue.",
      { summary: field("A summary of the user's issue.", MAX_TEXT_LENGTH) },
    ),
  ];
}
