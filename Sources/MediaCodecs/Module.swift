// Module placeholder: types arrive with their issue.
